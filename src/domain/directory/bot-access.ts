import type { BotRecord, ChannelRecord, GuildRecord, MemberRecord } from '../../store/index.js';
import type { Deps } from '../deps.js';
import { effectivePermissions } from '../permissions.js';

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
