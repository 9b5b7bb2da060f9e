import { translator } from './i18n.ts';

/*
 * The pipe page's grouping editor (docs/pipes.md, "Grouping"): the form a pipe's `grouping` makes
 * and the pipe/update body it gives. Pure, so the unit tests read it directly; the panel only
 * draws it. The bounds are the server's (src/domain/pipes/grouping.ts), which checks again.
 */

export const GROUPING_LIMITS = {
  keyLength: 1000,
  minWindowS: 1,
  maxWindowS: 86_400,
  maxLimit: 1000,
} as const;

export const GROUP_MODES = ['none', 'update', 'digest', 'throttle'] as const;
export type GroupMode = (typeof GROUP_MODES)[number];

/** A pipe's grouping as the API answers it. */
export interface PipeGrouping {
  readonly key: string;
  readonly mode: Exclude<GroupMode, 'none'>;
  readonly window_s: number;
  readonly limit: number | null;
}

export interface GroupingForm {
  readonly mode: GroupMode;
  readonly key: string;
  /** As typed: whole seconds. */
  readonly windowS: string;
  readonly limit: string;
}

/** What a new grouping starts from: Alertmanager's group key, a minute, 10 per window. */
const FRESH = { key: '{{ data.groupKey }}', windowS: '60', limit: '10' } as const;

export const groupingForm = (g: PipeGrouping | null | undefined): GroupingForm =>
  g
    ? {
        mode: g.mode,
        key: g.key,
        windowS: String(g.window_s),
        limit: g.limit === null ? FRESH.limit : String(g.limit),
      }
    : { mode: 'none', ...FRESH };

export type GroupingField = 'key' | 'window' | 'limit';

const wholeIn = (text: string, min: number, max: number): number | null => {
  const t = text.trim();
  if (!/^\d+$/.test(t)) return null;
  const n = Number(t);
  return n >= min && n <= max ? n : null;
};

/** The pipe/update body for the form, or the field that is wrong. */
export function groupingBody(
  pipeId: string,
  f: GroupingForm,
): { ok: true; body: { id: string; grouping: PipeGrouping | null } } | { ok: false; field: GroupingField } {
  if (f.mode === 'none') return { ok: true, body: { id: pipeId, grouping: null } };
  const key = f.key.trim();
  if (key === '' || [...key].length > GROUPING_LIMITS.keyLength) return { ok: false, field: 'key' };
  const windowS = wholeIn(f.windowS, GROUPING_LIMITS.minWindowS, GROUPING_LIMITS.maxWindowS);
  if (windowS === null) return { ok: false, field: 'window' };
  let limit: number | null = null;
  if (f.mode === 'throttle') {
    limit = wholeIn(f.limit, 1, GROUPING_LIMITS.maxLimit);
    if (limit === null) return { ok: false, field: 'limit' };
  }
  return { ok: true, body: { id: pipeId, grouping: { key, mode: f.mode, window_s: windowS, limit } } };
}

export const t = translator({
  'zh-CN': {
    heading: '分组（告警风暴）',
    intro:
      '按分组键把同一组的消息合并：原地更新第一条、按时间窗口汇总，或限制每个窗口的条数。由 worker 决定，发送方的请求照常应答。',
    mode: '方式',
    none: '不分组（每条消息单独发送）',
    update: '原地更新：同组后续消息编辑第一条',
    digest: '汇总：每个窗口发一条汇总消息',
    throttle: '限流：每个窗口最多 N 条，其余汇总',
    key: '分组键（模板）',
    keyHint: '对每条消息渲染；结果为空则不分组。例如 {{ data.groupKey }}',
    window: '窗口（秒）',
    windowHint: '汇总或限流的窗口；原地更新时，组内无消息多久后改发新消息。1 到 86400。',
    limit: '每个窗口单独发送的条数',
    save: '保存分组',
    saved: '分组已保存。',
    badKey: '请填写分组键模板（最多 1000 个字符）。',
    badWindow: '窗口是 1 到 86400 之间的整数秒。',
    badLimit: '条数是 1 到 1000 之间的整数。',
    fact: '{mode}，分组键 {key}，窗口 {window} 秒',
    factLimit: '，每个窗口 {n} 条',
    updateShort: '原地更新',
    digestShort: '汇总',
    throttleShort: '限流',
  },
  'en-US': {
    heading: 'Grouping (alert storms)',
    intro:
      "Messages with the same group key are handled together: the first edited in place, collected into one digest per window, or throttled to N per window. Decided by the worker; senders' requests are answered as before.",
    mode: 'Mode',
    none: 'None (each message sent on its own)',
    update: "Update in place: later messages edit the group's first",
    digest: 'Digest: one message per group and window',
    throttle: 'Throttle: at most N per window, the rest in a digest',
    key: 'Group key (a template)',
    keyHint: 'Rendered on each message; an empty result is not grouped. For example {{ data.groupKey }}',
    window: 'Window (seconds)',
    windowHint:
      "The digest's or throttle's window; in update mode, how long a quiet group keeps its message to edit. 1 to 86400.",
    limit: 'Messages per window sent on their own',
    save: 'Save grouping',
    saved: 'Grouping saved.',
    badKey: 'Give the group key template (at most 1000 characters).',
    badWindow: 'The window is a whole number of seconds from 1 to 86400.',
    badLimit: 'The limit is a whole number from 1 to 1000.',
    fact: '{mode} by {key}, {window} s windows',
    factLimit: ', {n} per window',
    updateShort: 'Update in place',
    digestShort: 'Digest',
    throttleShort: 'Throttle',
  },
});

/** The pipe's grouping in a line, for its details: `digest by {{ data.groupKey }}, 60 s windows`. */
export function groupingText(g: PipeGrouping | null | undefined): string {
  if (!g) return t('none');
  const limit = g.mode === 'throttle' ? t('factLimit', { n: String(g.limit ?? 0) }) : '';
  return t('fact', { mode: t(`${g.mode}Short`), key: g.key, window: String(g.window_s) }) + limit;
}

export const fieldText = (field: GroupingField): string =>
  t(({ key: 'badKey', window: 'badWindow', limit: 'badLimit' } as const)[field]);
