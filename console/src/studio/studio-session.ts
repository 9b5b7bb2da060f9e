import { type Role, session } from '../api.ts';

/* Who is in the studio: a bot session is bound to one bot; an operator sees every bot's templates. */

export function studioRole(): Role {
  const s = session.value;
  return s.state === 'signed-in' ? s.role : 'operator';
}

/** The bot a bot session is bound to; undefined for an operator. */
export function sessionBotId(): string | undefined {
  const s = session.value;
  return s.state === 'signed-in' && s.role === 'bot' ? s.bot?.id : undefined;
}
