import type { Role } from './api.ts';
import { formatNumber, translator } from './i18n.ts';

/*
 * The template list's records, its filters and how they travel in the console's URL and to
 * GET /admin/api/template/list, the labels of a template's format and review status, and what the
 * delete dialog says of a template's use. Pure (no DOM, no API calls): unit-tested directly.
 */

/** A template as the admin API answers it (docs/templates.md; studio contract). */
export interface TemplateView {
  readonly id: string;
  readonly bot_id: string;
  readonly title: string;
  readonly type: number;
  /** 1 KMarkdown, 2 card JSON, 3 card YAML, 4 card XML. */
  readonly msgtype: number;
  /** 0 not reviewed, 1 in review, 2 approved, 3 rejected. */
  readonly status: number;
  readonly test_data: string;
  readonly test_channel: string;
  readonly content: string;
  readonly version: number;
  readonly banned: boolean;
  readonly consumption: number;
  /** ms since the epoch (an ISO 8601 text is read too). */
  readonly created_at: number | string;
  readonly updated_at: number | string;
}

/** What POST template/create, update, duplicate and gallery/use answer. */
export interface SavedTemplate {
  readonly model: TemplateView;
  readonly warnings: readonly { code: number; message: string }[];
}

/** GET /admin/api/template/usage: pipes using the template, and its deliveries not yet sent. */
export interface TemplateUsage {
  readonly pipes: readonly { id: string; title: string }[];
  readonly pending: number;
}

/** A time the API wrote as ms or as ISO 8601, as ms (null when it cannot be read). */
export function timeMs(v: number | string | null | undefined): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string' || v === '') return null;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? null : ms;
}

const t = translator({
  'zh-CN': {
    msgtype1: 'KMarkdown',
    msgtype2: '卡片（JSON）',
    msgtype3: '卡片（YAML）',
    msgtype4: '卡片（XML）',
    status0: '未审核',
    status1: '审核中',
    status2: '已通过',
    status3: '已拒绝',
    anyStatus: '全部状态',
    anyBanned: '全部',
    bannedOnly: '仅已封禁',
    notBanned: '仅未封禁',
    sortUpdatedDesc: '最近修改',
    sortUpdatedAsc: '最早修改',
    sortCreatedDesc: '最近创建',
    sortCreatedAsc: '最早创建',
    sortTitleAsc: '名称 A→Z',
    sortTitleDesc: '名称 Z→A',
    sortStatus: '审核状态',
    sortMsgtype: '格式',
    noPipes: '没有管道使用它。',
    onePipe: '1 个管道使用它：{names}。',
    manyPipes: '{n} 个管道使用它：{names}。',
    morePipes: '{names} 等 {more} 个',
    noPending: '没有待发送的消息使用它。',
    onePending: '1 条尚未发送的消息将以 TEMPLATE_DELETED 失败。',
    manyPending: '{n} 条尚未发送的消息将以 TEMPLATE_DELETED 失败。',
    rule: '使用已删除模板的消息再也不能发送。',
  },
  'en-US': {
    msgtype1: 'KMarkdown',
    msgtype2: 'Card (JSON)',
    msgtype3: 'Card (YAML)',
    msgtype4: 'Card (XML)',
    status0: 'Not reviewed',
    status1: 'In review',
    status2: 'Approved',
    status3: 'Rejected',
    anyStatus: 'Any status',
    anyBanned: 'Any',
    bannedOnly: 'Banned only',
    notBanned: 'Not banned',
    sortUpdatedDesc: 'Recently changed',
    sortUpdatedAsc: 'Least recently changed',
    sortCreatedDesc: 'Newest',
    sortCreatedAsc: 'Oldest',
    sortTitleAsc: 'Title A→Z',
    sortTitleDesc: 'Title Z→A',
    sortStatus: 'Review status',
    sortMsgtype: 'Format',
    noPipes: 'No pipe uses it.',
    onePipe: '1 pipe uses it: {names}.',
    manyPipes: '{n} pipes use it: {names}.',
    morePipes: '{names} and {more} more',
    noPending: 'No message waiting to be sent uses it.',
    onePending: '1 message not yet sent will fail with TEMPLATE_DELETED.',
    manyPending: '{n} messages not yet sent will fail with TEMPLATE_DELETED.',
    rule: 'Messages that use a deleted template can no longer be sent.',
  },
});

export const MSGTYPES = [1, 2, 3, 4] as const;

/** A template's format (msgtype) in the current language; an unknown one as its number. */
export function msgtypeLabel(msgtype: number): string {
  return msgtype >= 1 && msgtype <= 4 ? t(`msgtype${msgtype as 1 | 2 | 3 | 4}`) : String(msgtype);
}

export const REVIEW_STATUSES = [0, 1, 2, 3] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** The review status in the current language; an unknown one as its number. */
export function reviewStatusLabel(status: number): string {
  return (REVIEW_STATUSES as readonly number[]).includes(status)
    ? t(`status${status as ReviewStatus}`)
    : String(status);
}

/** The badge class of a review status (styles.css), so approved reads as good and rejected as bad. */
export function reviewStatusBadge(status: number): string {
  return ['review-none', 'review-pending', 'review-approved', 'review-rejected'][status] ?? 'review-none';
}

/** The list's sort orders, as GET template/list takes them (TEMPLATE_SORT_FIELDS on the server). */
export const SORTS = [
  { value: '-updated_at', key: 'sortUpdatedDesc' },
  { value: 'updated_at', key: 'sortUpdatedAsc' },
  { value: '-created_at', key: 'sortCreatedDesc' },
  { value: 'created_at', key: 'sortCreatedAsc' },
  { value: 'title', key: 'sortTitleAsc' },
  { value: '-title', key: 'sortTitleDesc' },
  { value: 'status', key: 'sortStatus' },
  { value: 'msgtype', key: 'sortMsgtype' },
] as const;
export type SortValue = (typeof SORTS)[number]['value'];
export const sortLabel = (s: (typeof SORTS)[number]): string => t(s.key);

export type BannedFilter = '' | 'true' | 'false';
export const BANNED_FILTERS: readonly { value: BannedFilter; label: () => string }[] = [
  { value: '', label: () => t('anyBanned') },
  { value: 'true', label: () => t('bannedOnly') },
  { value: 'false', label: () => t('notBanned') },
];
export const anyStatusLabel = (): string => t('anyStatus');

/** The template list's state. Ids, codes and the search text only: nothing secret goes in the URL. */
export interface TemplateFilters {
  /** Title contains (case-insensitive); '' = any. */
  readonly q: string;
  /** Operators only ('' = every bot); a bot session always sees its own bot. */
  readonly bot_id: string;
  /** '' or a review status. */
  readonly status: '' | `${ReviewStatus}`;
  readonly banned: BannedFilter;
  readonly sort: SortValue;
  readonly page: number;
}

/** The list opens on what was changed last: where an author picks up their work. */
export const DEFAULT_TEMPLATE_FILTERS: TemplateFilters = {
  q: '',
  bot_id: '',
  status: '',
  banned: '',
  sort: '-updated_at',
  page: 1,
};

/** The search box's longest text (a title is at most 64 characters, so longer finds nothing). */
export const MAX_Q = 64;

const cleanId = (v: string | null): string => {
  const s = (v ?? '').trim();
  return s.length > 0 && s.length <= 64 ? s : '';
};

/**
 * The filters a console URL's query holds. Values the API would refuse (an unknown status or sort,
 * a page that is not a positive integer) fall back to their default, so a hand-edited URL still
 * opens the list.
 */
export function templateFiltersFromQuery(q: URLSearchParams): TemplateFilters {
  const status = q.get('status') ?? '';
  const banned = q.get('banned') ?? '';
  const sort = q.get('sort') ?? '';
  const page = Number(q.get('page'));
  return {
    q: (q.get('q') ?? '').slice(0, MAX_Q),
    bot_id: cleanId(q.get('bot_id')),
    status: /^[0-3]$/.test(status) ? (status as TemplateFilters['status']) : '',
    banned: banned === 'true' || banned === 'false' ? banned : '',
    sort: SORTS.some((s) => s.value === sort) ? (sort as SortValue) : DEFAULT_TEMPLATE_FILTERS.sort,
    page: Number.isInteger(page) && page >= 1 && page <= 100_000 ? page : 1,
  };
}

/** The console path of a list state: `templates?q=&bot_id=&status=&banned=&sort=&page=` (defaults left out). */
export function templatesPath(f: TemplateFilters): string {
  const q = new URLSearchParams();
  if (f.q.trim() !== '') q.set('q', f.q.trim());
  if (f.bot_id) q.set('bot_id', f.bot_id);
  if (f.status !== '') q.set('status', f.status);
  if (f.banned !== '') q.set('banned', f.banned);
  if (f.sort !== DEFAULT_TEMPLATE_FILTERS.sort) q.set('sort', f.sort);
  if (f.page > 1) q.set('page', String(f.page));
  const s = q.toString();
  return s ? `templates?${s}` : 'templates';
}

/**
 * The query of GET /admin/api/template/list for a list state. A bot session sends no bot_id: the
 * server binds it to its own bot (and a bot_id in the URL is ignored, not forwarded).
 */
export function templateListQuery(
  f: TemplateFilters,
  role: Role,
  pageSize: number,
): Record<string, string | number> {
  const out: Record<string, string | number> = { page: f.page, page_size: pageSize, sort: f.sort };
  const q = f.q.trim();
  if (q !== '') out.q = q;
  if (role === 'operator' && f.bot_id) out.bot_id = f.bot_id;
  if (f.status !== '') out.status = Number(f.status);
  if (f.banned !== '') out.banned = f.banned;
  return out;
}

/** How many pipe names the delete dialog lists before "and N more". */
export const USAGE_NAMES = 5;

/**
 * What deleting a template would do, as the delete dialog says it before confirming: the pipes
 * that use it (named), the messages not yet sent that will fail, and the spec's rule.
 */
export function usageSummary(u: TemplateUsage): { pipes: string; pending: string; rule: string } {
  const n = u.pipes.length;
  const shown = u.pipes
    .slice(0, USAGE_NAMES)
    .map((p) => `“${p.title}”`)
    .join(', ');
  const names =
    n > USAGE_NAMES ? t('morePipes', { names: shown, more: formatNumber(n - USAGE_NAMES) }) : shown;
  const pipes =
    n === 0
      ? t('noPipes')
      : n === 1
        ? t('onePipe', { names })
        : t('manyPipes', { n: formatNumber(n), names });
  const pending =
    u.pending <= 0
      ? t('noPending')
      : u.pending === 1
        ? t('onePending')
        : t('manyPending', { n: formatNumber(u.pending) });
  return { pipes, pending, rule: t('rule') };
}
