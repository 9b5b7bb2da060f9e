import mongoose, { type Connection } from 'mongoose';

/* Schema of inbound pipes, private to src/store. */
const opts = { versionKey: false, strict: true } as const;

const rateLimitSchema = new mongoose.Schema(
  { capacity: { type: Number, required: true }, per_second: { type: Number, required: true } },
  { _id: false },
);

// Event routing (domain/pipes/routing): where a request names its event, exactly one of the two.
const eventSourceSchema = new mongoose.Schema(
  { header: { type: String, default: undefined }, body: { type: String, default: undefined } },
  { _id: false },
);

// One route: an event name and its template (null: the event is answered and not posted). A list
// rather than a map, so that any event name is a value, never a field name.
const routeSchema = new mongoose.Schema(
  { event: { type: String, required: true }, template_id: { type: String, default: null } },
  { _id: false },
);

// Verified senders (issue 20, store/pipe-signature.ts): secrets sealed or hashed, never plain
// (a sender's public key is no secret).
const signingSecretSchema = new mongoose.Schema(
  {
    sealed: { type: String, default: null },
    hash: { type: String, default: null },
    public_key: { type: String, default: null },
    created_at: { type: Number, required: true },
    expires_at: { type: Number, default: null },
  },
  { _id: false },
);
const signatureSchema = new mongoose.Schema(
  {
    scheme: { type: String, required: true },
    header: { type: String, default: null },
    encoding: { type: String, default: null },
    prefix: { type: String, default: null },
    secrets: { type: [signingSecretSchema], default: [] },
  },
  { _id: false },
);

// Alert-storm control (domain/pipes/grouping.ts); null or absent: not grouped.
const groupingSchema = new mongoose.Schema(
  {
    key: { type: String, required: true },
    mode: { type: String, required: true },
    window_s: { type: Number, required: true },
    limit: { type: Number, default: null },
  },
  { _id: false },
);

const pipeSchema = new mongoose.Schema(
  {
    _id: { type: String, required: true },
    bot_id: { type: String, required: true },
    title: { type: String, required: true },
    channel_id: { type: String, required: true },
    // The channel's server, kept with the pipe so the hot path never looks it up.
    guild_id: { type: String, required: true },
    template_id: { type: String, default: null },
    enabled: { type: Boolean, required: true, default: true },
    // SHA-256 of the access token; the token itself is never stored.
    token_hash: { type: String, required: true },
    // null: the configured default.
    rate_limit: { type: rateLimitSchema, default: null },
    // Whether accepted payloads are captured (domain/pipes/captures.ts); absent on pipes made
    // before captures existed, which read as true.
    capture: { type: Boolean, default: true },
    // Absent on pipes made before routing existed, which read as null / no routes / no preset.
    event_source: { type: eventSourceSchema, default: null },
    routes: { type: [routeSchema], default: undefined },
    preset: { type: String, default: null },
    // What a message over the platform's limits becomes (render/fit.ts); absent (pipes made
    // before it existed): split.
    overflow: { type: String, default: undefined },
    // null or absent (pipes made before issue 20): unsigned.
    signature: { type: signatureSchema, default: null },
    grouping: { type: groupingSchema, default: null },
    created_at: { type: Number, required: true },
    updated_at: { type: Number, required: true },
  },
  opts,
);
// The back office lists a bot's pipes.
pipeSchema.index({ bot_id: 1, created_at: 1 });
pipeSchema.index({ created_at: 1 });

export function definePipeModels(conn: Connection) {
  return {
    Pipe: conn.model('Pipe', pipeSchema, 'pipes'),
  };
}

export type PipeModels = ReturnType<typeof definePipeModels>;
