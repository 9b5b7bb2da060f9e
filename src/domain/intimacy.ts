import { ValidationError } from '../errors/index.js';
import { withRecordLock } from '../locks/record-lock.js';
import { lockKey } from '../redis/keys.js';
import type { BotRecord, ImageRef, IntimacyChanges } from '../store/index.js';
import type { Deps } from './deps.js';

/** The read response of spec 4.1. */
export interface IntimacyView {
  readonly img_url: string;
  readonly social_info: string;
  readonly last_modify: number;
  readonly last_read: number;
  readonly score: number;
  readonly img_list: readonly ImageRef[];
}

const imageUrl = (bot: BotRecord, imgId: string | null): string => {
  const find = (id: string) => bot.img_list.find((img) => img.id === id)?.url;
  // An image later removed from the bot's list falls back to the default, then to none.
  return (imgId !== null ? find(imgId) : undefined) ?? find(bot.default_img_id) ?? '';
};

/** A user's record, or the bot's defaults for a user without one. Reading creates nothing. */
export async function readIntimacy(deps: Deps, bot: BotRecord, userId: string): Promise<IntimacyView> {
  const rec = await deps.store.intimacy.get(bot, userId);
  return {
    img_url: imageUrl(bot, rec?.img_id ?? null),
    social_info: rec?.social_info ?? '',
    last_modify: rec?.last_modify ?? 0,
    last_read: rec?.last_read ?? 0,
    score: rec?.score ?? bot.default_score,
    img_list: bot.img_list,
  };
}

export async function updateIntimacy(
  deps: Deps,
  bot: BotRecord,
  userId: string,
  changes: IntimacyChanges,
): Promise<void> {
  if (changes.img_id !== undefined && !bot.img_list.some((img) => img.id === changes.img_id)) {
    throw new ValidationError('img_id', {
      'zh-CN': '必须是机器人 img_list 中某张图片的 id',
      'en-US': "must be the id of an image in the bot's img_list",
    });
  }
  // The upsert is one atomic operation on MongoDB but not on FerretDB v1 (see withRecordLock).
  const key = lockKey(deps.config.redisPrefix, 'intimacy', bot.id, userId);
  await withRecordLock(deps.redis, key, () => deps.store.intimacy.upsert(bot, userId, changes, deps.now()));
}
