import { createHash } from 'node:crypto';
import { ValidationError } from '../../errors/index.js';
import { compileTemplate } from '../../render/index.js';
import type { PipeGrouping } from '../../store/index.js';

/*
 * Alert-storm control (docs/pipes.md, "Grouping"): what a pipe's grouping setting may be, and
 * the pure decisions the worker's grouping step (workers/delivery/grouping.ts) makes with it.
 * No I/O here: unit-tested without Redis.
 */

export type { PipeGrouping };

export const GROUPING_MODES = ['update', 'digest', 'throttle'] as const;
export type GroupingMode = (typeof GROUPING_MODES)[number];

/** Longest key template, in characters. */
export const MAX_GROUP_KEY_TEMPLATE = 1_000;
/** Shortest and longest window, in seconds (1 s to 1 day). */
export const MIN_GROUP_WINDOW_S = 1;
export const MAX_GROUP_WINDOW_S = 86_400;
/** Most messages per group and window a throttle lets out on their own. */
export const MAX_THROTTLE_LIMIT = 1_000;
/** Longest group key kept as it rendered (`_group.key`); a longer one is cut to this. */
export const MAX_GROUP_KEY_LENGTH = 256;
/**
 * Most messages one digest carries. A window that collects more is closed and its digest sent
 * (the next message opens a new window): a digest renders every item in one template run, which
 * the engine bounds, and a window of tens of thousands would fail its render for good.
 */
export const MAX_DIGEST_ITEMS = 500;
/**
 * Most bytes of collected job inputs (as the queue holds them: deflated, base64) one window
 * keeps, for the same reason: 8 MiB, about 1,000 deflated 50 KB GitLab pushes, or 8 bodies
 * at BODY_LIMIT_BYTES that do not deflate. The window that reaches it is closed.
 */
export const MAX_DIGEST_BYTES = 8 * 1024 * 1024;

/** The template variable a grouped message's template sees beside `data`. */
export const GROUP_VARIABLE = '_group';

const invalid = (en: string, zh: string) => new ValidationError('grouping', { 'zh-CN': zh, 'en-US': en });

/**
 * An operator's grouping setting, checked: `limit` with throttle and only there, and a key
 * template that compiles (400 naming `grouping` otherwise). null: not grouped.
 */
export function checkGrouping(g: PipeGrouping | null): PipeGrouping | null {
  if (g === null) return null;
  if (g.mode === 'throttle' && g.limit === null) {
    throw invalid('limit is required with mode throttle', 'throttle 模式必须设置 limit');
  }
  if (g.mode !== 'throttle' && g.limit !== null) {
    throw invalid('limit is only for mode throttle', 'limit 只能用于 throttle 模式');
  }
  try {
    compileTemplate(g.key);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw invalid(`key does not compile: ${detail}`, `key 模板无法编译：${detail}`);
  }
  return { key: g.key, mode: g.mode, window_s: g.window_s, limit: g.limit };
}

/**
 * The group a message's rendered key names: trimmed, cut to MAX_GROUP_KEY_LENGTH; null (not
 * grouped) when it rendered empty.
 */
export function groupKeyOf(rendered: string): string | null {
  const key = rendered.trim();
  if (key === '') return null;
  return [...key].slice(0, MAX_GROUP_KEY_LENGTH).join('');
}

/** A short fixed-length name of a group, for Redis keys and ids (the key itself may be long). */
export const groupHash = (pipeId: string, key: string): string =>
  createHash('sha256').update(`${pipeId}\n${key}`).digest('hex').slice(0, 32);

/**
 * The msg_id of a group's digest for one window: a UUID derived from the group and the window
 * (its number and opening time), so that every worker that adds its job names the same one
 * (BullMQ adds a job id once) and a re-run after a crash sends under the same id (the sent log,
 * the timeline's insert and the relay's nonce then see one message). The opening time keeps a
 * group whose counter was lost (a Redis restore) from reusing an old window's id.
 */
export function digestMsgId(groupId: string, window: number, openedAt: number): string {
  const h = createHash('sha256').update(`digest\n${groupId}\n${window}\n${openedAt}`).digest('hex');
  // Version 8 (custom) UUID layout: the version nibble and the variant bits are set.
  const v = `8${h.slice(13, 16)}`;
  const variant = ((Number.parseInt(h.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${v}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Where a message stands in its group's order: accepted first, msg_id breaking ties. */
export interface GroupSeq {
  readonly at: number;
  readonly id: string;
}

/** -1, 0, 1 as `a` comes before, is, or comes after `b`. */
export function compareSeq(a: GroupSeq, b: GroupSeq): number {
  if (a.at !== b.at) return a.at < b.at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The group's carrier in update mode: the message later ones edit, and the last one applied. */
export interface Carrier {
  readonly msg_id: string;
  /** The relay's id of the carrier (null: the store sink's timeline, keyed by msg_id). */
  readonly upstream_msg_id: string | null;
  /** The newest message whose content the carrier shows. */
  readonly applied: GroupSeq;
}

/**
 * What update mode does with a message, given the group's carrier (null: none yet):
 * - `post`: the first of its group, posted as a new message that becomes the carrier;
 * - `edit`: newer than what the carrier shows: the carrier is edited to this message's content;
 * - `stale`: not newer (it arrived late, or a re-run of one already applied): folded into the
 *   carrier without a send, so that an older alert never overwrites a newer state;
 * - `carrier`: the carrier's own job run again (its send is found by the re-run checks).
 */
export type UpdateDecision = 'post' | 'edit' | 'stale' | 'carrier';

export function updateDecision(carrier: Carrier | null, seq: GroupSeq): UpdateDecision {
  if (carrier === null) return 'post';
  if (carrier.msg_id === seq.id) return 'carrier';
  return compareSeq(seq, carrier.applied) > 0 ? 'edit' : 'stale';
}

/** When a window opened at `openedAt` (ms) closes. */
export const windowEnd = (openedAt: number, windowS: number): number => openedAt + windowS * 1000;

/**
 * `_group` as a grouped message's template sees it (docs/templates.md): `items` are the
 * collected bodies, oldest first (a message sent on its own sees itself alone); `held_back`,
 * how many were kept out of single sends (a throttle's closing digest: its own items; a message
 * a throttle let through: how many its group's previous window held back).
 */
export type GroupMeta = {
  readonly key: string;
  readonly mode: GroupingMode;
  readonly count: number;
  readonly held_back: number;
  readonly window_start: number;
  readonly window_end: number;
};
