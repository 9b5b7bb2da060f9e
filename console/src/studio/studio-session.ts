import { session } from '../api.ts';

/*
 * Who is in the studio. A bot session (signed in with a bot's token) is bound to one bot; an
 * operator sees every bot's templates. The session signal gains `role` and `bot` with the bot
 * sign-in (studio contract); until the answer says otherwise, the session is an operator's.
 */

export type StudioRole = 'operator' | 'bot';

type MaybeStudioSession = { role?: unknown; bot?: { id?: unknown } | null };

export function studioRole(): StudioRole {
  const s = session.value as MaybeStudioSession;
  return s.role === 'bot' ? 'bot' : 'operator';
}

/** The bot a bot session is bound to; undefined for an operator. */
export function sessionBotId(): string | undefined {
  const s = session.value as MaybeStudioSession;
  return s.role === 'bot' && typeof s.bot?.id === 'string' ? s.bot.id : undefined;
}
