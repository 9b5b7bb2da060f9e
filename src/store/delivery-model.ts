import mongoose, { type Connection } from 'mongoose';

/*
 * Schemas of the delivery work (issue 6), private to src/store:
 * - `deliveries`: one document per pipe message (`_id` = msg_id), the outcome the worker records
 *   and pipemsg-status reads. Written by the one worker holding the job's BullMQ lock, or by a
 *   replay, never by two writers at once.
 * - `messages`: channel timelines of bots whose sink is `store`. `_id` = msg_id, insert-only, so a
 *   job that runs again after a crash cannot add the message twice (duplicate key).
 */
const opts = { versionKey: false, strict: true } as const;

const deliverySchema = new mongoose.Schema(
  {
    _id: { type: String, required: true },
    bot_id: { type: String, required: true },
    pipe_id: { type: String, required: true },
    channel_id: { type: String, required: true },
    // The template the message was accepted with, and its event on a pipe that routes by event
    // (null: none; absent on records from before they were kept).
    template_id: { type: String, default: null },
    event: { type: String, default: null },
    status: { type: String, required: true },
    reason: { type: String, default: null },
    code: { type: Number, default: null },
    message: { type: String, default: null },
    // The catalogue parameters of the failure, to word `message` in the reader's language;
    // absent on records from before they were kept.
    params: { type: mongoose.Schema.Types.Mixed, default: undefined },
    detail: { type: mongoose.Schema.Types.Mixed, default: null },
    attempts: { type: Number, default: 0 },
    replays: { type: Number, default: 0 },
    sent_at: { type: Number, default: null },
    upstream_msg_id: { type: String, default: null },
    // A folded message's carrier: the group's digest, or the message it edited (grouping).
    folded_into: { type: String, default: null },
    // A message split over several (render/fit.ts): [{msg_id, upstream_msg_id}] in order.
    // Absent: sent as one.
    parts: { type: [mongoose.Schema.Types.Mixed], default: undefined },
    retry_at: { type: Number, default: null },
    not_permissions_mention: { type: [String], default: [] },
    // The job as accepted, kept while the message is dead so that replay can send it again;
    // removed when the retention ends (see src/domain/deliveries/retention.ts).
    job: { type: mongoose.Schema.Types.Mixed, default: null },
    // Each recorded transition, oldest first; capped at DELIVERY_HISTORY_MAX (deliveries.ts).
    // No default: records from before it read as [].
    history: { type: [mongoose.Schema.Types.Mixed], default: undefined },
    // The message as sent ({type, content}, or {type, packed} when long), written with `sent`.
    rendered: { type: mongoose.Schema.Types.Mixed, default: null },
    // When the retention sweep dropped `rendered` (RENDERED_RETENTION_DAYS after sent_at).
    rendered_dropped_at: { type: Number, default: undefined },
    created_at: { type: Number, required: true },
    updated_at: { type: Number, required: true },
  },
  opts,
);
// The dead-letter list: failed messages of one bot (and pipe), newest first.
deliverySchema.index({ status: 1, bot_id: 1, pipe_id: 1, updated_at: -1 });
deliverySchema.index({ status: 1, updated_at: -1 });
// The retention sweep of the message as sent: sent records by when they were sent.
deliverySchema.index({ status: 1, sent_at: 1 });
// The back office's delivery list of one bot or one pipe, over a time range, newest first.
deliverySchema.index({ bot_id: 1, created_at: -1 });
deliverySchema.index({ pipe_id: 1, created_at: -1 });

const messageSchema = new mongoose.Schema(
  {
    _id: { type: String, required: true },
    channel_id: { type: String, required: true },
    guild_id: { type: String, default: '' },
    bot_id: { type: String, required: true },
    author_id: { type: String, required: true },
    type: { type: Number, required: true },
    content: { type: String, required: true },
    quote_id: { type: String, default: null },
    nonce: { type: String, default: '' },
    create_at: { type: Number, required: true },
    // Only on messages that had group mentions neutralised (see TimelineMessage).
    not_permissions_mention: { type: [String], default: undefined },
    // Only on messages edited in place (a grouped pipe's update mode).
    updated_at: { type: Number, default: undefined },
  },
  opts,
);
// The timeline: one channel, newest first (_id breaks ties between equal timestamps).
messageSchema.index({ channel_id: 1, create_at: -1, _id: -1 });

export function defineDeliveryModels(conn: Connection) {
  return {
    Delivery: conn.model('Delivery', deliverySchema, 'deliveries'),
    Message: conn.model('Message', messageSchema, 'messages'),
  };
}

export type DeliveryModels = ReturnType<typeof defineDeliveryModels>;
