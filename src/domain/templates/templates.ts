import { HeraldError } from '../../errors/index.js';
import { withRecordLock } from '../../locks/record-lock.js';
import { compileTemplate } from '../../render/index.js';
import type { BotRecord, Page, PageRequest, TemplateChanges, TemplateRecord } from '../../store/index.js';
import type { Deps } from '../deps.js';
import { publishDirectoryChange } from '../directory/change-feed.js';
import { MSGTYPE, NORMAL_MESSAGE_CONSUMPTION, TEMPLATE_STATUS } from './constants.js';
import { TemplateNotFoundError, TemplateUnavailableError } from './errors.js';
import { checkTestData, testRenderWarnings } from './preview.js';
import { statusAfterContentChange } from './review.js';

/** Fields a bot sets on create and update (spec 2.2). */
export interface TemplateInput {
  readonly title?: string;
  readonly content?: string;
  readonly type?: number;
  readonly msgtype?: number;
  readonly test_data?: string;
  readonly test_channel?: string;
}

/** A saved template, with the problems its test render found (the save went through). */
export interface SavedTemplate {
  readonly model: TemplateRecord;
  readonly warnings: HeraldError[];
}

/** Lock of one template's writes (FerretDB v1 updates are not atomic; see withRecordLock). */
export const templateLockKey = (deps: Deps, id: string): string =>
  `${deps.config.redisPrefix}:lock:template:${id}`;

/** Throws the compile error (with line, column, excerpt) of a template that does not compile. */
function checkCompiles(content: string): void {
  compileTemplate(content);
}

export async function createTemplate(
  deps: Deps,
  bot: BotRecord,
  input: TemplateInput & { title: string; content: string },
): Promise<SavedTemplate> {
  checkTestData(input.test_data);
  checkCompiles(input.content);
  const model = await deps.store.templates.create(
    bot,
    {
      title: input.title,
      content: input.content,
      type: input.type ?? 0,
      msgtype: input.msgtype ?? MSGTYPE.KMD,
      test_data: input.test_data ?? '',
      test_channel: input.test_channel ?? '',
      consumption: NORMAL_MESSAGE_CONSUMPTION,
    },
    deps.now(),
  );
  return { model, warnings: await testRenderWarnings(deps, bot, model) };
}

/** The bot's live template, or TemplateNotFoundError (also for another bot's id). */
export async function getTemplate(deps: Deps, bot: BotRecord, id: string): Promise<TemplateRecord> {
  const t = await deps.store.templates.get(bot, id);
  if (!t) throw new TemplateNotFoundError();
  return t;
}

export function listTemplates(deps: Deps, bot: BotRecord, page: PageRequest): Promise<Page<TemplateRecord>> {
  return deps.store.templates.list(bot, page);
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
    if (!updated) throw new HeraldError('CONFLICT', { detail: 'the template changed meanwhile; retry' });
    // Workers cache templates; they drop this one now rather than at their next re-read.
    await publishDirectoryChange(deps, { kind: 'template', id });
    return updated;
  });
}

/**
 * Bot update. A template in review cannot be modified; a content (or format) change of an
 * approved or rejected template sends it back to "not reviewed" at the normal consumption.
 */
export async function updateTemplate(
  deps: Deps,
  bot: BotRecord,
  id: string,
  input: TemplateInput,
): Promise<SavedTemplate> {
  checkTestData(input.test_data);
  if (input.content !== undefined) checkCompiles(input.content);
  const model = await changeTemplate(deps, bot, id, (current) => {
    if (current.status === TEMPLATE_STATUS.IN_REVIEW) throw new HeraldError('TEMPLATE_IN_REVIEW');
    const changed = <K extends keyof TemplateInput>(k: K) =>
      input[k] !== undefined && input[k] !== current[k as keyof TemplateRecord];
    const contentChanged = changed('content') || changed('msgtype') || changed('type');
    const status = contentChanged ? statusAfterContentChange(current.status) : current.status;
    return {
      ...input,
      status,
      ...(status !== current.status ? { consumption: NORMAL_MESSAGE_CONSUMPTION } : {}),
    };
  });
  return { model, warnings: await testRenderWarnings(deps, bot, model) };
}

/** Deletes the template (any status). Later sends with it fail with TEMPLATE_DELETED. */
export async function deleteTemplate(deps: Deps, bot: BotRecord, id: string): Promise<void> {
  const gone = await withRecordLock(deps.redis, templateLockKey(deps, id), () =>
    deps.store.templates.markDeleted(bot, id, deps.now()),
  );
  if (!gone) throw new TemplateNotFoundError();
  await publishDirectoryChange(deps, { kind: 'template', id });
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
