/*
 * The platform directory: users, guilds with roles, channels and members, the platform objects
 * templates see, and what a bot may do in a channel. See docs/directory.md.
 */
export {
  type BotSendExplanation,
  botPermissionsInChannel,
  type ChannelAccess,
  explainBotSend,
  userPermissionsInChannel,
} from './bot-access.js';
export {
  DIRECTORY_CACHE_FRESH_MS,
  type DirectoryChange,
  type DirectoryChangeKind,
  type DirectorySubscription,
  PUBLISH_RETRY_MS,
  parseDirectoryChange,
  publishDirectoryChange,
  type SubscribeOptions,
  subscribeDirectoryChanges,
} from './change-feed.js';
export {
  CHANNEL_TYPE,
  type ChannelInput,
  createChannel,
  getChannel,
  isTextChannel,
  listChannels,
  listGuildChannels,
  type NewChannelInput,
  requireChannel,
  updateChannel,
} from './channels.js';
export {
  buildRoles,
  createGuild,
  EVERYONE_ROLE_NAME,
  type GuildInput,
  getGuild,
  listBotGuilds,
  listGuilds,
  type NewGuildInput,
  type RoleInput,
  requireGuild,
  updateGuild,
} from './guilds.js';
export {
  addMember,
  getMember,
  listMembers,
  type MemberInput,
  removeMember,
  requireMember,
  updateMember,
} from './members.js';
export {
  overwriteUserIds,
  type PlatformChannel,
  type PlatformGuild,
  type PlatformRole,
  type PlatformUser,
  toPlatformChannel,
  toPlatformGuild,
  toPlatformRole,
  toPlatformUser,
  unknownUserRecord,
} from './platform-objects.js';
export { getUser, getUsers, requireUser, upsertUser } from './users.js';
