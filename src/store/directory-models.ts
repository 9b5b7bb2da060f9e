import mongoose, { type Connection } from 'mongoose';

/*
 * Schemas of the platform directory (guilds with roles, channels, members), private to src/store.
 * Documents are written whole by the repositories; the schemas document the shape and give
 * the indexes.
 */
const opts = { versionKey: false, strict: true } as const;

const roleSchema = new mongoose.Schema(
  {
    role_id: { type: Number, required: true },
    name: { type: String, default: '' },
    color: { type: Number, default: 0 },
    position: { type: Number, default: 0 },
    hoist: { type: Number, default: 0 },
    mentionable: { type: Number, default: 0 },
    permissions: { type: Number, default: 0 },
  },
  { _id: false },
);

const guildSchema = new mongoose.Schema(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    topic: { type: String, default: '' },
    user_id: { type: String, required: true },
    icon: { type: String, default: '' },
    notify_type: { type: Number, default: 0 },
    region: { type: String, default: '' },
    enable_open: { type: Boolean, default: false },
    open_id: { type: String, default: '' },
    default_channel_id: { type: String, default: '' },
    welcome_channel_id: { type: String, default: '' },
    roles: { type: [roleSchema], default: [] },
    created_at: { type: Number, required: true },
    updated_at: { type: Number, required: true },
  },
  opts,
);
guildSchema.index({ name: 1 });
guildSchema.index({ created_at: 1 });

const roleOverwriteSchema = new mongoose.Schema(
  {
    role_id: { type: Number, required: true },
    allow: { type: Number, default: 0 },
    deny: { type: Number, default: 0 },
  },
  { _id: false },
);
const userOverwriteSchema = new mongoose.Schema(
  {
    user_id: { type: String, required: true },
    allow: { type: Number, default: 0 },
    deny: { type: Number, default: 0 },
  },
  { _id: false },
);

const channelSchema = new mongoose.Schema(
  {
    _id: { type: String, required: true },
    guild_id: { type: String, required: true },
    name: { type: String, required: true },
    user_id: { type: String, default: '' },
    topic: { type: String, default: '' },
    type: { type: Number, default: 1 },
    slow_mode: { type: Number, default: 0 },
    is_category: { type: Boolean, default: false },
    parent_id: { type: String, default: '' },
    level: { type: Number, default: 0 },
    permission_overwrites: { type: [roleOverwriteSchema], default: [] },
    permission_users: { type: [userOverwriteSchema], default: [] },
    permission_sync: { type: Number, default: 0 },
    created_at: { type: Number, required: true },
    updated_at: { type: Number, required: true },
  },
  opts,
);
// The channels of one guild, in list order.
channelSchema.index({ guild_id: 1, level: 1 });

const memberSchema = new mongoose.Schema(
  {
    guild_id: { type: String, required: true },
    user_id: { type: String, required: true },
    nickname: { type: String, default: '' },
    roles: { type: [Number], default: [] },
    joined_at: { type: Number, required: true },
    updated_at: { type: Number, required: true },
  },
  opts,
);
// One membership per guild and user; also the lookup path of every permission check.
memberSchema.index({ guild_id: 1, user_id: 1 }, { unique: true });
// The guilds a user (a bot) has joined.
memberSchema.index({ user_id: 1 });

export function defineDirectoryModels(conn: Connection) {
  return {
    Guild: conn.model('Guild', guildSchema, 'guilds'),
    Channel: conn.model('Channel', channelSchema, 'channels'),
    Member: conn.model('Member', memberSchema, 'guild_members'),
  };
}

export type DirectoryModels = ReturnType<typeof defineDirectoryModels>;
