import { translator } from './i18n.ts';
import type { RenderedMessage } from './views/message-view.tsx';

/*
 * Delivery statuses, the Deliveries screen's filters and how they travel in the console's URL.
 * Pure (no DOM, no API calls), so the unit tests read them directly.
 */

/** What the list can filter on; `any` is every status. */
export const STATUS_FILTERS = [
  'any',
  'queued',
  'rate_limited',
  'retrying',
  'sent',
  'folded',
  'failed',
  'replayed',
] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];
export type DeliveryStatus = Exclude<StatusFilter, 'any'>;

/** Statuses a message leaves by itself: a page showing one keeps asking until it settles. */
export const UNSETTLED: ReadonlySet<string> = new Set(['queued', 'retrying', 'rate_limited']);

/**
 * Whether a delivery's page keeps asking: while the message is unsettled, and while a sent
 * message is known only from its job (no history yet): its record, with the message as sent,
 * is written by the worker's sent log a moment later.
 */
export function keepsWatching(d: Pick<Delivery, 'status' | 'history'>): boolean {
  return UNSETTLED.has(d.status) || (d.status === 'sent' && (d.history ?? []).length === 0);
}

/**
 * Reason codes a delivery can fail or retry with (docs/delivery.md), offered as suggestions in the
 * filter. Render errors add their own catalogue keys, so the filter also takes any code typed in.
 */
export const KNOWN_REASONS = [
  'PIPE_DISABLED',
  'PIPE_DELETED',
  'BOT_UNAVAILABLE',
  'TEMPLATE_DELETED',
  'TEMPLATE_BANNED',
  'TYPE_MISMATCH',
  'CHANNEL_NOT_FOUND',
  'CHANNEL_NOT_TEXT',
  'NO_VIEW_PERMISSION',
  'NO_SEND_PERMISSION',
  'TEMP_TARGET_NOT_MEMBER',
  'INPUT_INVALID',
  'RELAY_NOT_CONFIGURED',
  'UPSTREAM_REJECTED',
  'UPSTREAM_RATE_LIMITED',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_TIMEOUT',
  'UPSTREAM_UNREACHABLE',
  'DEPENDENCY_DOWN',
  'STALLED',
  'IN_DOUBT',
  'INTERNAL',
  'TEMPLATE_RENDER',
  'TEMPLATE_LIMIT',
  'CARD_INVALID',
  'MESSAGE_TOO_LONG',
] as const;

/** The shape the admin API accepts for a reason (src/api/routes/admin-deliveries.ts). */
export const REASON_PATTERN = /^[A-Z][A-Z0-9_]{0,63}$/;

const t = translator({
  'zh-CN': {
    any: '全部',
    queued: '排队中',
    rate_limited: '限速等待',
    retrying: '重试中',
    sent: '已发送',
    folded: '已合并',
    failed: '失败',
    replayed: '已重发',
  },
  'en-US': {
    any: 'Any',
    queued: 'Queued',
    rate_limited: 'Rate limited',
    retrying: 'Retrying',
    sent: 'Sent',
    folded: 'Folded',
    failed: 'Failed',
    replayed: 'Replayed',
  },
});

/** A status in the current language (an unknown one as written). */
export function statusLabel(status: string): string {
  return (STATUS_FILTERS as readonly string[]).includes(status) ? t(status as StatusFilter) : status;
}

/** The Deliveries screen's filters. Ids and codes only: nothing secret ever goes in the URL. */
export interface DeliveryFilters {
  readonly status: StatusFilter;
  readonly bot_id: string;
  readonly pipe_id: string;
  readonly reason: string;
  /** ms on created_at; null = open. */
  readonly since: number | null;
  readonly until: number | null;
  readonly page: number;
}

/** The screen opens on every status; `?status=failed` (the overview's links) shows dead letters. */
export const DEFAULT_FILTERS: DeliveryFilters = {
  status: 'any',
  bot_id: '',
  pipe_id: '',
  reason: '',
  since: null,
  until: null,
  page: 1,
};

/** Ids as the admin API takes them (1 to 64 characters); anything else is dropped. */
const cleanId = (v: string | null): string => {
  const s = (v ?? '').trim();
  return s.length > 0 && s.length <= 64 ? s : '';
};

const cleanMs = (v: string | null): number | null => {
  if (v === null || !/^\d{1,15}$/.test(v)) return null;
  return Number(v);
};

/**
 * The filters a console URL's query holds. Values the API would refuse (an unknown status, a
 * malformed reason, a page that is not a positive integer) fall back to their default, so a
 * hand-edited link still opens a list.
 */
export function filtersFromQuery(query: URLSearchParams): DeliveryFilters {
  const status = query.get('status') ?? '';
  const reason = (query.get('reason') ?? '').trim();
  const page = query.get('page') ?? '';
  return {
    status: (STATUS_FILTERS as readonly string[]).includes(status)
      ? (status as StatusFilter)
      : DEFAULT_FILTERS.status,
    bot_id: cleanId(query.get('bot_id')),
    pipe_id: cleanId(query.get('pipe_id')),
    reason: REASON_PATTERN.test(reason) ? reason : '',
    since: cleanMs(query.get('since')),
    until: cleanMs(query.get('until')),
    page: /^[1-9]\d{0,5}$/.test(page) ? Number(page) : 1,
  };
}

/** The query string (no `?`) for filters: only what differs from the defaults, in a fixed order. */
export function filtersToQuery(f: DeliveryFilters): string {
  const q = new URLSearchParams();
  if (f.status !== DEFAULT_FILTERS.status) q.set('status', f.status);
  if (f.bot_id) q.set('bot_id', f.bot_id);
  if (f.pipe_id) q.set('pipe_id', f.pipe_id);
  if (f.reason) q.set('reason', f.reason);
  if (f.since !== null) q.set('since', String(f.since));
  if (f.until !== null) q.set('until', String(f.until));
  if (f.page > 1) q.set('page', String(f.page));
  return q.toString();
}

/** The app path of a filtered list, e.g. `deliveries?status=failed&reason=NO_SEND_PERMISSION`. */
export function deliveriesPath(f: Partial<DeliveryFilters>): string {
  const qs = filtersToQuery({ ...DEFAULT_FILTERS, ...f });
  return qs === '' ? 'deliveries' : `deliveries?${qs}`;
}

/** The query of GET /admin/api/delivery/list for filters (status always given: the API's default is failed). */
export function filtersToApi(f: DeliveryFilters, pageSize: number): Record<string, string | number> {
  const q: Record<string, string | number> = { status: f.status, page: f.page, page_size: pageSize };
  if (f.bot_id) q.bot_id = f.bot_id;
  if (f.pipe_id) q.pipe_id = f.pipe_id;
  if (f.reason) q.reason = f.reason;
  if (f.since !== null) q.since = f.since;
  if (f.until !== null) q.until = f.until;
  return q;
}

/**
 * What a bulk replay of the listed dead letters would send to POST delivery/replay-batch, or why
 * it cannot: the route selects by bot, pipe and reason only (at least one), never by time, so a
 * list narrowed by time would not be what gets replayed.
 */
export function replayBatchFilter(
  f: DeliveryFilters,
):
  | { ok: true; body: { bot_id?: string; pipe_id?: string; reason?: string } }
  | { ok: false; why: 'not-failed' | 'no-selector' | 'time-range' } {
  if (f.status !== 'failed') return { ok: false, why: 'not-failed' };
  if (f.since !== null || f.until !== null) return { ok: false, why: 'time-range' };
  const body: { bot_id?: string; pipe_id?: string; reason?: string } = {};
  if (f.bot_id) body.bot_id = f.bot_id;
  if (f.pipe_id) body.pipe_id = f.pipe_id;
  if (f.reason) body.reason = f.reason;
  if (Object.keys(body).length === 0) return { ok: false, why: 'no-selector' };
  return { ok: true, body };
}

/** The most one replay-batch call takes (REPLAY_BATCH_MAX on the server). */
export const REPLAY_BATCH_MAX = 500;

/** How many the next batch call should take when `done` of the `confirmed` count were handled. */
export function nextBatchLimit(confirmed: number, done: number): number {
  return Math.max(0, Math.min(REPLAY_BATCH_MAX, confirmed - done));
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A `<input type="datetime-local">` value (local time, minutes) for ms; '' for null. */
export function msToLocalInput(ms: number | null): string {
  if (ms === null) return '';
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** ms for a datetime-local value (read as local time); null for '' or an invalid value. */
export function localInputToMs(value: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!m) return null;
  const d = new Date(
    Number(m[1]),
    Number(m[2]) - 1,
    Number(m[3]),
    Number(m[4]),
    Number(m[5]),
    Number(m[6] ?? 0),
  );
  const ms = d.getTime();
  return Number.isFinite(ms) ? ms : null;
}

/** One entry of a delivery's status history (GET delivery/view). */
export interface HistoryEntry {
  readonly status: string;
  readonly at: number;
  readonly reason?: string | null;
  readonly code?: number | null;
  readonly retry_at?: number | null;
  readonly attempt?: number | null;
}

/** A delivery record as the admin API answers it. */
export interface Delivery {
  readonly msg_id: string;
  readonly bot_id: string;
  readonly pipe_id: string;
  readonly channel_id: string;
  readonly status: string;
  readonly reason: string | null;
  readonly code: number | null;
  readonly message: string | null;
  readonly detail: Readonly<Record<string, unknown>> | null;
  readonly attempts: number;
  readonly replays: number;
  readonly sent_at: number | null;
  readonly upstream_msg_id: string | null;
  /** A folded message's carrier: its group's digest, or the message its update edited. */
  readonly folded_into?: string | null;
  /** A message split over several: every part's ids, in order; null: sent as one. */
  readonly parts?: ReadonlyArray<{ readonly msg_id: string; readonly upstream_msg_id: string | null }> | null;
  readonly retry_at: number | null;
  readonly not_permissions_mention: readonly string[];
  readonly created_at: number;
  readonly updated_at: number;
  readonly history?: readonly HistoryEntry[];
  readonly rendered?: RenderedMessage | null;
  /** When the retention sweep dropped `rendered` (RENDERED_RETENTION_DAYS after sending). */
  readonly rendered_dropped_at?: number | null;
}

/** A page of a list endpoint. */
export interface ListPage<T> {
  readonly items: T[];
  readonly meta: {
    page: number;
    page_total: number;
    page_size: number;
    total: number;
    /** Dead letters only: how many of `total` can still be replayed (input not expired). */
    replayable?: number;
  };
}
