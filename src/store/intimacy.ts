import { upsertRetryingOnce } from './db-errors.js';
import type { Models } from './models.js';
import type { BotRecord, IntimacyRecord } from './records.js';

export interface IntimacyChanges {
  readonly score?: number;
  readonly social_info?: string;
  readonly img_id?: string;
}

interface IntimacyDoc {
  bot_id: string;
  user_id: string;
  score: number;
  social_info?: string;
  img_id?: string | null;
  last_modify: number;
  last_read?: number;
}

const toRecord = (d: IntimacyDoc): IntimacyRecord => ({
  bot_id: d.bot_id,
  user_id: d.user_id,
  score: d.score,
  social_info: d.social_info ?? '',
  img_id: d.img_id ?? null,
  last_modify: d.last_modify,
  last_read: d.last_read ?? 0,
});

export function createIntimacyStore({ Intimacy }: Models) {
  return {
    async get(bot: BotRecord, userId: string): Promise<IntimacyRecord | null> {
      const d = await Intimacy.findOne({ bot_id: bot.id, user_id: userId }).lean<IntimacyDoc>();
      return d ? toRecord(d) : null;
    },

    /**
     * One atomic upsert: given fields are set, the others keep their value, and a new record
     * starts from the bot's defaults. Concurrent updates of one record therefore never lose a
     * field, unlike read-modify-write.
     */
    async upsert(
      bot: BotRecord,
      userId: string,
      changes: IntimacyChanges,
      now: number,
    ): Promise<IntimacyRecord> {
      const set: Record<string, unknown> = { last_modify: now };
      for (const [k, v] of Object.entries(changes)) if (v !== undefined) set[k] = v;
      const onInsert: Record<string, unknown> = { created_at: now, last_read: 0 };
      if (!('score' in set)) onInsert.score = bot.default_score;
      if (!('social_info' in set)) onInsert.social_info = '';
      const run = () =>
        Intimacy.findOneAndUpdate(
          { bot_id: bot.id, user_id: userId },
          { $set: set, $setOnInsert: onInsert },
          { upsert: true, returnDocument: 'after' },
        ).lean<IntimacyDoc>();
      const d = await upsertRetryingOnce(run);
      if (!d) throw new Error('upsert returned no document');
      return toRecord(d);
    },
  };
}

export type IntimacyStore = ReturnType<typeof createIntimacyStore>;
