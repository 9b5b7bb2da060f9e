import { HeraldError, ValidationError } from '../../errors/index.js';
import type { BotRecord, TemplateRecord } from '../../store/index.js';
import type { Deps } from '../deps.js';
import { NORMAL_MESSAGE_CONSUMPTION, TEMPLATE_STATUS } from './constants.js';
import { TemplateTransitionError } from './errors.js';
import { changeTemplate } from './template-records.js';

/*
 * The review state machine of spec 3.2, for the back office (no public route yet: every template
 * is created with status 0). Ban is orthogonal to review: a banned template keeps its status but
 * cannot send.
 *
 * | action  | from                  | to               |
 * |---------|-----------------------|------------------|
 * | submit  | 0 not reviewed, 3 rejected | 1 in review |
 * | approve | 1 in review           | 2 approved       |
 * | reject  | 1 in review           | 3 rejected       |
 * | content change (bot update) | 0, 2, 3 | 0 (normal consumption again); refused in 1 |
 * | ban / unban | any             | unchanged, banned flag set / cleared |
 */
export type ReviewAction = 'submit' | 'approve' | 'reject';

const { NOT_REVIEWED, IN_REVIEW, APPROVED, REJECTED } = TEMPLATE_STATUS;

export const REVIEW_TRANSITIONS: Readonly<Record<ReviewAction, ReadonlyMap<number, number>>> = {
  submit: new Map([
    [NOT_REVIEWED, IN_REVIEW],
    [REJECTED, IN_REVIEW],
  ]),
  approve: new Map([[IN_REVIEW, APPROVED]]),
  reject: new Map([[IN_REVIEW, REJECTED]]),
};

/** The status after `action` from `status`; TemplateTransitionError when the table has no move. */
export function nextStatus(action: ReviewAction, status: number): number {
  const next = REVIEW_TRANSITIONS[action].get(status);
  if (next === undefined) throw new TemplateTransitionError(action, status);
  return next;
}

/** Status after the bot changed the content: every review verdict is void (in review: refused earlier). */
export function statusAfterContentChange(status: number): number {
  return status === IN_REVIEW ? IN_REVIEW : NOT_REVIEWED;
}

/**
 * A reviewer's decision is about the text they read: given `version` (the one their page showed),
 * a template changed since is refused (409), checked under the record lock with the write.
 */
export interface ReviewedVersion {
  readonly version?: number;
}

function checkVersion(current: TemplateRecord, seen: ReviewedVersion): void {
  if (seen.version !== undefined && seen.version !== current.version) {
    throw new HeraldError('CONFLICT', {
      detail: {
        'zh-CN': `模板自版本 ${seen.version} 起已被修改（现为版本 ${current.version}），请重新加载`,
        'en-US': `the template changed since version ${seen.version} (now ${current.version}); reload it`,
      },
    });
  }
}

const transition = (
  deps: Deps,
  bot: BotRecord,
  id: string,
  action: ReviewAction,
  extra = {},
  seen: ReviewedVersion = {},
) =>
  changeTemplate(deps, bot, id, (t) => {
    checkVersion(t, seen);
    return { status: nextStatus(action, t.status), ...extra };
  });

export function submitTemplate(deps: Deps, bot: BotRecord, id: string): Promise<TemplateRecord> {
  return transition(deps, bot, id, 'submit');
}

/**
 * Approves; `consumption` (default: that of a normal message) is the rate-limiter cost of one
 * message with this template and may not exceed a normal message's.
 */
export async function approveTemplate(
  deps: Deps,
  bot: BotRecord,
  id: string,
  options: { consumption?: number } & ReviewedVersion = {},
): Promise<TemplateRecord> {
  const consumption = options.consumption ?? NORMAL_MESSAGE_CONSUMPTION;
  if (!(consumption > 0 && consumption <= NORMAL_MESSAGE_CONSUMPTION)) {
    throw new ValidationError('consumption', {
      'zh-CN': `必须大于 0 且不超过 ${NORMAL_MESSAGE_CONSUMPTION}`,
      'en-US': `must be above 0 and at most ${NORMAL_MESSAGE_CONSUMPTION}`,
    });
  }
  return transition(deps, bot, id, 'approve', { consumption }, options);
}

export function rejectTemplate(
  deps: Deps,
  bot: BotRecord,
  id: string,
  seen: ReviewedVersion = {},
): Promise<TemplateRecord> {
  return transition(deps, bot, id, 'reject', { consumption: NORMAL_MESSAGE_CONSUMPTION }, seen);
}

export function banTemplate(
  deps: Deps,
  bot: BotRecord,
  id: string,
  seen: ReviewedVersion = {},
): Promise<TemplateRecord> {
  return changeTemplate(deps, bot, id, (t) => {
    checkVersion(t, seen);
    return { banned: true };
  });
}

export function unbanTemplate(deps: Deps, bot: BotRecord, id: string): Promise<TemplateRecord> {
  return changeTemplate(deps, bot, id, () => ({ banned: false }));
}
