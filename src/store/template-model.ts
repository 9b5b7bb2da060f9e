import mongoose, { type Connection } from 'mongoose';

/*
 * The template collection. One document per template; a deleted template stays as a tombstone
 * (deleted_at set, content cleared) so that a pipe bound to it can say "deleted" rather than
 * "never existed". Every lookup of a live template filters on `deleted_at: null`.
 */
const templateSchema = new mongoose.Schema(
  {
    _id: { type: String, required: true },
    bot_id: { type: String, required: true },
    title: { type: String, required: true },
    type: { type: Number, required: true, default: 0 },
    msgtype: { type: Number, required: true, default: 1 },
    /** Review state (spec 3.2): 0 not reviewed, 1 in review, 2 approved, 3 rejected. */
    status: { type: Number, required: true, default: 0 },
    /** Banned for risk: cannot send, whatever the review state. */
    banned: { type: Boolean, required: true, default: false },
    /** Rate-limiter cost of one message sent with this template. */
    consumption: { type: Number, required: true },
    test_data: { type: String, default: '' },
    test_channel: { type: String, default: '' },
    content: { type: String, default: '' },
    /** Bumped by every change; workers cache compiled templates by (id, version). */
    version: { type: Number, required: true, default: 1 },
    created_at: { type: Number, required: true },
    updated_at: { type: Number, required: true },
    deleted_at: { type: Number, default: null },
  },
  { versionKey: false, strict: true },
);
// The list path: one bot's live templates, in each sort order offered.
templateSchema.index({ bot_id: 1, deleted_at: 1, created_at: 1 });
templateSchema.index({ bot_id: 1, deleted_at: 1, updated_at: 1 });
templateSchema.index({ bot_id: 1, deleted_at: 1, title: 1 });

export function defineTemplateModels(conn: Connection) {
  return { Template: conn.model('Template', templateSchema, 'templates') };
}

export type TemplateModels = ReturnType<typeof defineTemplateModels>;
