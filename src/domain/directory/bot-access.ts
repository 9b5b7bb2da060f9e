import { NotFoundError, ValidationError } from '../../errors/index.js';
import type { BotRecord, ChannelRecord, GuildRecord, MemberRecord } from '../../store/index.js';
import type { Deps } from '../deps.js';
import {
  type ExplainedStep,
  effectivePermissions,
  explainSendPermission,
  type SendExplanation,
} from '../permissions.js';
import { isTextChannel } from './channels.js';

export interface ChannelAccess {
  readonly channel: ChannelRecord;
  readonly guild: GuildRecord;
  /** The bot's membership of the channel's guild; null when it has not joined. */
  readonly member: MemberRecord | null;
  /** The bot user's effective permissions in the channel (0 when not a member). */
  readonly permissions: number;
}

/** What `userId` may do in channel `channelId`; null when the channel (or its guild) does not exist. */
export async function userPermissionsInChannel(
  deps: Deps,
  userId: string,
  channelId: string,
): Promise<ChannelAccess | null> {
  const channel = await deps.store.channels.get(channelId);
  if (!channel) return null;
  const [guild, member] = await Promise.all([
    deps.store.guilds.get(channel.guild_id),
    deps.store.members.get(channel.guild_id, userId),
  ]);
  if (!guild) return null;
  return { channel, guild, member, permissions: effectivePermissions({ guild, member, channel, userId }) };
}

/** What the bot (its user, bot.user_id) may do in the channel; null when the channel does not exist. */
export function botPermissionsInChannel(
  deps: Deps,
  bot: BotRecord,
  channelId: string,
): Promise<ChannelAccess | null> {
  return userPermissionsInChannel(deps, bot.user_id, channelId);
}

/** "Can this bot send here?" for operators: the permission explanation, and the bot's own state. */
export interface BotSendExplanation extends Omit<SendExplanation, 'decided_by' | 'steps'> {
  readonly bot_id: string;
  readonly channel_id: string;
  readonly guild_id: string;
  readonly decided_by: {
    readonly kind: SendExplanation['decided_by']['kind'] | 'bot_disabled';
    readonly id?: number | string;
    readonly name?: string;
  };
  readonly steps: ReadonlyArray<
    Omit<ExplainedStep, 'kind'> & { readonly kind: ExplainedStep['kind'] | 'bot_disabled' }
  >;
}

/**
 * Whether `bot` may send in `channelId`, explained (explainSendPermission: the computation the
 * workers' check runs). A disabled bot sends nowhere: it is decided by `bot_disabled`, with the
 * permission steps still listed for when it is enabled again. Steps about the bot's user are
 * named after the bot. 404 for an unknown channel (or guild); 400 for a channel that takes no
 * messages (voice, category), which the workers refuse before any permission.
 */
export async function explainBotSend(
  deps: Deps,
  bot: BotRecord,
  channelId: string,
): Promise<BotSendExplanation> {
  const channel = await deps.store.channels.get(channelId);
  if (!channel) throw new NotFoundError('channel');
  if (!isTextChannel(channel)) {
    throw new ValidationError('channel_id', {
      'zh-CN': '必须是文字频道（不是语音频道或分组）',
      'en-US': 'must be a text channel (not voice, not a category)',
    });
  }
  const [guild, member] = await Promise.all([
    deps.store.guilds.get(channel.guild_id),
    deps.store.members.get(channel.guild_id, bot.user_id),
  ]);
  if (!guild) throw new NotFoundError('channel');
  const e = explainSendPermission({ guild, member, channel, userId: bot.user_id });
  const named = <T extends { readonly id?: number | string; readonly name?: string }>(x: T): T =>
    x.id === bot.user_id && x.name === undefined ? { ...x, name: bot.name } : x;
  const steps = e.steps.map(named);
  const where = { bot_id: bot.id, channel_id: channel.id, guild_id: guild.id };
  if (!bot.enabled) {
    const disabled = { kind: 'bot_disabled', id: bot.id, name: bot.name } as const;
    return {
      ...e,
      ...where,
      allowed: false,
      decided_by: disabled,
      steps: [{ ...disabled, op: 'none', effect: 'deny', permissions: 0, after: 0 }, ...steps],
    };
  }
  return { ...e, ...where, decided_by: named(e.decided_by), steps };
}
