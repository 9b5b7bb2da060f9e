import mongoose, { type Connection } from 'mongoose';

/*
 * Mongoose schemas, private to src/store: nothing above the store sees a mongoose type.
 * Field names follow the platform's snake_case so that documents read like API objects.
 * `versionKey: false` because no caller does optimistic locking through __v.
 */
const opts = { versionKey: false, strict: true } as const;

const imageSchema = new mongoose.Schema(
  { id: { type: String, required: true }, url: { type: String, required: true } },
  { _id: false },
);

const botSchema = new mongoose.Schema(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    user_id: { type: String, required: true },
    token_hash: { type: String, required: true },
    enabled: { type: Boolean, required: true, default: true },
    default_score: { type: Number, required: true, default: 0 },
    default_img_id: { type: String, default: '' },
    img_list: { type: [imageSchema], default: [] },
    // Pipe delivery (issue 6): message budget, sink, and the relay's secret.
    rate_capacity: { type: Number, default: null },
    rate_per_second: { type: Number, default: null },
    sink: { type: String, default: 'store' },
    relay_url: { type: String, default: '' },
    upstream_token: { type: String, default: '' },
    created_at: { type: Number, required: true },
    updated_at: { type: Number, required: true },
  },
  opts,
);
botSchema.index({ created_at: 1 });
botSchema.index({ name: 1 });

const userSchema = new mongoose.Schema(
  {
    _id: { type: String, required: true },
    username: { type: String, required: true },
    nickname: { type: String, default: '' },
    identify_num: { type: String, default: '' },
    online: { type: Boolean, default: false },
    bot: { type: Boolean, default: false },
    status: { type: Number, default: 0 },
    avatar: { type: String, default: '' },
    vip_avatar: { type: String, default: '' },
    mobile_verified: { type: Boolean, default: false },
    created_at: { type: Number, required: true },
    updated_at: { type: Number, required: true },
  },
  opts,
);

const intimacySchema = new mongoose.Schema(
  {
    bot_id: { type: String, required: true },
    user_id: { type: String, required: true },
    score: { type: Number, required: true },
    social_info: { type: String, default: '' },
    // Unset means "the bot's current default image", so a changed default reaches old records.
    img_id: { type: String },
    last_modify: { type: Number, required: true },
    last_read: { type: Number, default: 0 },
    created_at: { type: Number, required: true },
  },
  opts,
);
// One record per bot and user; also the lookup path of both intimacy endpoints.
intimacySchema.index({ bot_id: 1, user_id: 1 }, { unique: true });

export function defineModels(conn: Connection) {
  return {
    Bot: conn.model('Bot', botSchema, 'bots'),
    User: conn.model('User', userSchema, 'users'),
    Intimacy: conn.model('Intimacy', intimacySchema, 'intimacies'),
  };
}

export type Models = ReturnType<typeof defineModels>;
