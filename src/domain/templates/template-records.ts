import { HeraldError } from '../../errors/index.js';
import { withRecordLock } from '../../locks/record-lock.js';
import { lockKey } from '../../redis/keys.js';
import type { BotRecord, TemplateChanges, TemplateRecord } from '../../store/index.js';
import type { Deps } from '../deps.js';
import { publishDirectoryChange } from '../directory/change-feed.js';
import { TemplateNotFoundError, TemplateUnavailableError } from './errors.js';

/*
 * One template record: reading it (for a bot, for a send) and changing it under its lock. The
 * operations built on these (create, update, review, preview) import from here, never the other
 * way round.
 */

/** Lock of one template's writes (FerretDB v1 updates are not atomic; see withRecordLock). */
export const templateLockKey = (deps: Deps, id: string): string =>
  lockKey(deps.config.redisPrefix, 'template', id);

/** The bot's live template, or TemplateNotFoundError (also for another bot's id). */
export async function getTemplate(deps: Deps, bot: BotRecord, id: string): Promise<TemplateRecord> {
  const t = await deps.store.templates.get(bot, id);
  if (!t) throw new TemplateNotFoundError();
  return t;
}

/**
 * Runs `change` on the current template under its record lock and writes what it returns at the
 * version it read (the store bumps the version). Used by every template write.
 */
export async function changeTemplate(
  deps: Deps,
  bot: BotRecord,
  id: string,
  change: (current: TemplateRecord) => TemplateChanges,
): Promise<TemplateRecord> {
  return withRecordLock(deps.redis, templateLockKey(deps, id), async () => {
    const current = await getTemplate(deps, bot, id);
    const changes = change(current);
    const updated = await deps.store.templates.update(bot, id, current.version, changes, deps.now());
    // Only a write that bypassed the lock (or a lock that expired mid-write) gets here.
    if (!updated) {
      throw new HeraldError('CONFLICT', {
        detail: { 'zh-CN': '模板已被同时修改，请重试', 'en-US': 'the template changed meanwhile; retry' },
      });
    }
    // Workers cache templates; they drop this one now rather than at their next re-read.
    await publishDirectoryChange(deps, { kind: 'template', id });
    return updated;
  });
}

/**
 * For the workers: the template a message is to be rendered with. Throws
 * TemplateUnavailableError (reason `deleted` or `banned`, codes 40020/40021) when it cannot
 * send, and TemplateNotFoundError when the id never named one of this bot's templates.
 * A template in review sends normally (spec 3.2). Cache compiled copies by (id, version).
 */
export async function getTemplateForSend(deps: Deps, bot: BotRecord, id: string): Promise<TemplateRecord> {
  return templateForSend(await deps.store.templates.getWithTombstone(bot, id), id);
}

/** The checks of getTemplateForSend on a record the caller already holds (e.g. from a cache). */
export function templateForSend(t: TemplateRecord | null, id: string): TemplateRecord {
  if (!t) throw new TemplateNotFoundError();
  if (t.deleted_at !== null) throw new TemplateUnavailableError('deleted', id);
  if (t.banned) throw new TemplateUnavailableError('banned', id);
  return t;
}
