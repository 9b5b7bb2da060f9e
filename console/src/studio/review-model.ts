import type { Role } from '../api.ts';
import { formatNumber, translator } from '../i18n.ts';

/*
 * The review workflow (spec section 3.2) as the review panel offers it: which actions a role has
 * on a template in a given state, the consumption an operator types when approving, and the
 * rules in one line each. Pure (no DOM, no API calls): unit-tested directly. The server decides
 * every transition; this only offers the ones that make sense.
 */

export type ReviewAction = 'submit' | 'approve' | 'reject' | 'ban' | 'unban';

/** What the panel needs of a template. */
export interface ReviewState {
  readonly id: string;
  /** 0 not reviewed, 1 in review, 2 approved, 3 rejected. */
  readonly status: number;
  readonly banned: boolean;
  readonly consumption: number;
  /** The version the page shows: a verdict on it is refused (409) if the template changed since. */
  readonly version?: number;
}

/**
 * The actions offered: submitting (bots and operators) from not reviewed or rejected; for
 * operators, approving or rejecting one in review, and banning or unbanning in any state.
 */
export function reviewActions(tpl: Pick<ReviewState, 'status' | 'banned'>, role: Role): ReviewAction[] {
  const out: ReviewAction[] = [];
  if (tpl.status === 0 || tpl.status === 3) out.push('submit');
  if (role !== 'operator') return out;
  if (tpl.status === 1) out.push('approve', 'reject');
  out.push(tpl.banned ? 'unban' : 'ban');
  return out;
}

/** A normal message's consumption: an approval's may be lower, never higher (src/domain/templates/review.ts). */
export const NORMAL_CONSUMPTION = 1;

/**
 * The consumption typed for an approval: empty is the server's default
 * (APPROVED_TEMPLATE_CONSUMPTION), otherwise a number above 0 and at most a normal message's (1).
 */
export function parseConsumption(text: string): { ok: true; value: number | undefined } | { ok: false } {
  const s = text.trim();
  if (s === '') return { ok: true, value: undefined };
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(s)) return { ok: false };
  const value = Number(s);
  return Number.isFinite(value) && value > 0 && value <= NORMAL_CONSUMPTION
    ? { ok: true, value }
    : { ok: false };
}

/** The body of POST /admin/api/template/review (consumption only with an approval that names one). */
export function reviewBody(
  id: string,
  action: Exclude<ReviewAction, 'submit'>,
  consumption?: number,
  version?: number,
): { id: string; action: string; consumption?: number; version?: number } {
  return {
    id,
    action,
    ...(action === 'approve' && consumption !== undefined ? { consumption } : {}),
    // Unban is not a verdict on the text, so it applies whatever the version.
    ...(version !== undefined && action !== 'unban' ? { version } : {}),
  };
}

const t = translator({
  'zh-CN': {
    ruleInReview: '审核中：不能修改，但仍可正常发送。',
    ruleApproved: '已通过：修改后回到“未审核”，每条消息按普通消息计费。',
    ruleBanned: '已封禁：使用它的消息不能发送（TEMPLATE_BANNED）。',
    ruleCost: '已通过的模板每条消息消耗更少的限速额度，发送更快；其他模板与普通消息相同（1）。',
    cost: '每条消息消耗 {c}（普通消息为 1）。',
  },
  'en-US': {
    ruleInReview: 'In review: it cannot be edited, and it still sends.',
    ruleApproved: 'Approved, then changed: it goes back to not reviewed (and to the normal cost).',
    ruleBanned: 'Banned: messages that use it cannot be sent (TEMPLATE_BANNED).',
    ruleCost:
      "An approved template's messages cost less of the bot's rate limit, so they send faster; others cost what a normal message does (1).",
    cost: 'Each message costs {c} (a normal message costs 1).',
  },
});

export type RuleKey = 'ruleInReview' | 'ruleApproved' | 'ruleBanned' | 'ruleCost';
export const RULES: readonly RuleKey[] = ['ruleInReview', 'ruleApproved', 'ruleBanned', 'ruleCost'];

/** The rules in the current language, each with whether it is the one that holds for this template now. */
export function reviewRules(tpl: Pick<ReviewState, 'status' | 'banned'>): { text: string; now: boolean }[] {
  const now: Record<RuleKey, boolean> = {
    ruleInReview: tpl.status === 1,
    ruleApproved: tpl.status === 2,
    ruleBanned: tpl.banned,
    ruleCost: false,
  };
  return RULES.map((k) => ({ text: t(k), now: now[k] }));
}

/** What one message with this template costs, in words. */
export const consumptionText = (c: number): string => t('cost', { c: formatNumber(c) });

/** Whether the editor should refuse edits: a template in review cannot be modified (spec 3.2). */
export const lockedForReview = (tpl: Pick<ReviewState, 'status'>): boolean => tpl.status === 1;
