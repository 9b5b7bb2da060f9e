import { HeraldError } from '../../errors/index.js';
import { withRecordLock } from '../../locks/record-lock.js';
import { compileTemplate } from '../../render/index.js';
import type { BotRecord, Page, PageRequest, TemplateRecord } from '../../store/index.js';
import type { Deps } from '../deps.js';
import { publishDirectoryChange } from '../directory/change-feed.js';
import { MSGTYPE, NORMAL_MESSAGE_CONSUMPTION, TEMPLATE_STATUS } from './constants.js';
import { TemplateNotFoundError } from './errors.js';
import { checkTestData, testRenderWarnings } from './preview.js';
import { statusAfterContentChange } from './review.js';
import { changeTemplate, templateLockKey } from './template-records.js';

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

export function listTemplates(deps: Deps, bot: BotRecord, page: PageRequest): Promise<Page<TemplateRecord>> {
  return deps.store.templates.list(bot, page);
}

/** Operators (read-only): live templates of every bot, or of `filter.bot_id`. */
export function listTemplatesAnyBot(
  deps: Deps,
  page: PageRequest,
  filter: { readonly bot_id?: string } = {},
): Promise<Page<TemplateRecord>> {
  return deps.store.templates.listAnyBot(page, filter);
}

/** Operators (read-only): a live template by id, whatever its bot; TemplateNotFoundError otherwise. */
export async function getTemplateAnyBot(deps: Deps, id: string): Promise<TemplateRecord> {
  const t = await deps.store.templates.getAnyBot(id);
  if (!t) throw new TemplateNotFoundError();
  return t;
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
