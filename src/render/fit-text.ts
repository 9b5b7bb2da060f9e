/**
 * Cutting text that is over a length limit (render/fit.ts): into parts that each fit, or to one
 * part with a marker. Lengths count code points, as the platform counts characters. KMarkdown is
 * cut where it least harms it (docs/pipes.md, "Messages that always fit"): between paragraphs,
 * else between lines, else between words, never inside a link, inline code or a `(met)`-style
 * tag when a cut elsewhere is possible; a code block that must be cut is closed at the end of one
 * part and opened again, with its language, at the start of the next.
 */

import { mbLength } from './twig/runtime/mb.js';

/** What a truncated text (and a truncated card) ends with. */
export const TRUNCATION_MARKER = '…（已截断）';

/** A cut is looked for no earlier than this share of the limit, so that parts are not tiny. */
const MIN_CUT_SHARE = 0.5;
/** How far past the limit spans (links, tags) are looked for, in UTF-16 units. */
const SPAN_LOOKAHEAD = 2000;

const FENCE = '```';
/** Longest code block language carried over to the next part (a longer one is cut). */
const MAX_INFO = 32;
const FENCE_LINE = /^ {0,3}```/;
/** Inline constructs a word cut should not fall inside (KMarkdown's own tags included). */
const SPANS = [
  /\[[^\]\n]*\]\([^)\s]*\)/g,
  /`[^`\n]+`/g,
  /\((met|rol|chn|emj|spl|ins|font)\)[^\n]*?\(\1\)(?:\[[^\]\n]*\])?/g,
  /\*\*[^*\n]+\*\*/g,
  /~~[^~\n]+~~/g,
];

/** Whether `s` has more than `max` code points; walks at most max + 1 of them. */
function longerThan(s: string, max: number): boolean {
  if (s.length <= max) return false;
  return unitIndex(s, max) < s.length;
}

/** The UTF-16 index after the first `n` code points of `s` (s.length when it has fewer). */
function unitIndex(s: string, n: number): number {
  let i = 0;
  for (let k = 0; k < n && i < s.length; k++) {
    const c = s.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < s.length;
    i += pair && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff ? 2 : 1;
  }
  return i;
}

interface Fence {
  /** Index of the opening fence line's first character. */
  readonly start: number;
  /** Index after the opening line's newline: the block's first code line. */
  readonly body: number;
  /** Index after the closing fence line (its newline included); Infinity when not closed here. */
  readonly end: number;
  /** The opening line after the backticks (its language). */
  readonly info: string;
}

/**
 * The code blocks that start before `until`; one still open there reads as not closed (a cut
 * before `until` is inside it either way).
 */
function fencesOf(s: string, until: number): Fence[] {
  const fences: Fence[] = [];
  let open: { start: number; body: number; info: string } | null = null;
  let i = 0;
  while (i < s.length && i < until) {
    const nl = s.indexOf('\n', i);
    const lineEnd = nl < 0 ? s.length : nl;
    const next = nl < 0 ? s.length : nl + 1;
    const line = s.slice(i, lineEnd);
    if (FENCE_LINE.test(line)) {
      if (open === null) {
        open = { start: i, body: next, info: line.trim().slice(FENCE.length).trim().slice(0, MAX_INFO) };
      } else {
        fences.push({ ...open, end: next });
        open = null;
      }
    }
    i = next;
  }
  if (open !== null) fences.push({ ...open, end: Number.POSITIVE_INFINITY });
  return fences;
}

const fenceAt = (fences: readonly Fence[], c: number): Fence | undefined =>
  fences.find((f) => f.start < c && c < f.end);

/** [start, end) ranges of inline constructs found in s[0, until). */
function spansOf(s: string, until: number): Array<[number, number]> {
  const text = s.slice(0, until);
  const out: Array<[number, number]> = [];
  for (const re of SPANS) {
    for (const m of text.matchAll(re)) out.push([m.index, m.index + m[0].length]);
  }
  return out;
}

const inSpan = (spans: ReadonlyArray<[number, number]>, c: number): boolean =>
  spans.some(([a, b]) => a < c && c < b);

/** One cut of `s` (longer than `max`): the head, within `max`, and what is left. */
interface Cut {
  readonly head: string;
  readonly tail: string;
}

/**
 * Cuts the first part off `s`. Plain text (`markdown` false) is cut between paragraphs, lines or
 * words, else at the limit; KMarkdown also keeps code blocks, links and tags whole where it can.
 */
function cutOnce(s: string, max: number, markdown: boolean): Cut {
  const limit = unitIndex(s, max);
  const min = Math.max(1, unitIndex(s, Math.floor(max * MIN_CUT_SHARE)));
  const fences = markdown ? fencesOf(s, limit + 1) : [];
  const spans = markdown ? spansOf(s, Math.min(s.length, limit + SPAN_LOOKAHEAD)) : [];
  const outside = (c: number) => fenceAt(fences, c) === undefined && !inSpan(spans, c);

  // A paragraph break, then a line break, outside code blocks: the newlines at the cut go.
  for (const sep of ['\n\n', '\n']) {
    for (let i = s.lastIndexOf(sep, limit - 1); i >= min; i = s.lastIndexOf(sep, i - 1)) {
      const c = i + sep.length;
      if (c <= limit && outside(c)) {
        return { head: trimNewlines(s.slice(0, i), 'end'), tail: trimNewlines(s.slice(c), 'start') };
      }
    }
  }
  // A line break inside a code block, which this part closes and the next opens again.
  if (markdown) {
    const room = unitIndex(s, max - FENCE.length);
    for (let i = s.lastIndexOf('\n', room - 1); i >= min; i = s.lastIndexOf('\n', i - 1)) {
      const fence = fenceAt(fences, i + 1);
      if (fence && i + 1 > fence.body) return closeAndReopen(s, i + 1, fence);
    }
  }
  // Between words.
  for (let c = limit; c >= min; c--) {
    const ch = s.charCodeAt(c);
    if ((ch === 0x20 || ch === 0x09) && outside(c)) return { head: s.slice(0, c), tail: s.slice(c + 1) };
  }
  // At the limit: before a link or tag the limit falls into, if that leaves enough; a code
  // block is closed and opened again.
  let c = limit;
  const span = spans.find(([a, b]) => a < c && c < b && a >= min);
  if (span) c = span[0];
  const fence = fenceAt(fences, c);
  if (fence && c > fence.body) {
    const room = unitIndex(s, max - FENCE.length - 1);
    return closeAndReopen(s, Math.min(c, room), fence, '\n');
  }
  return { head: s.slice(0, c), tail: s.slice(c) };
}

/** `s` without the newlines at one end (no copy of a long tail when there are none). */
function trimNewlines(s: string, end: 'start' | 'end'): string {
  if (end === 'start') {
    let i = 0;
    while (s.charCodeAt(i) === 0x0a) i++;
    return i === 0 ? s : s.slice(i);
  }
  let j = s.length;
  while (j > 0 && s.charCodeAt(j - 1) === 0x0a) j--;
  return j === s.length ? s : s.slice(0, j);
}

function closeAndReopen(s: string, c: number, fence: Fence, newline = ''): Cut {
  return { head: `${s.slice(0, c)}${newline}${FENCE}`, tail: `${FENCE}${fence.info}\n${s.slice(c)}` };
}

/**
 * `text` in parts of at most `max` code points each, in order (text itself when it fits).
 * `max` must leave room for a code block's fences (the callers' limits are 2,000 and up).
 */
export function splitText(text: string, max: number, markdown: boolean): string[] {
  const parts: string[] = [];
  let rest = text;
  while (longerThan(rest, max)) {
    const { head, tail } = cutOnce(rest, max, markdown);
    if (head !== '') parts.push(head);
    rest = tail;
  }
  if (rest !== '' || parts.length === 0) parts.push(rest);
  return parts;
}

/** `text` cut to at most `max` code points, ending with `marker` when it was cut. */
export function truncateText(
  text: string,
  max: number,
  markdown: boolean,
  marker = TRUNCATION_MARKER,
): string {
  if (!longerThan(text, max)) return text;
  // In KMarkdown a newline may go before the marker (after a closed code block).
  const room = max - mbLength(marker) - (markdown ? 1 : 0);
  const head = room > 0 ? cutOnce(text, room, markdown).head : '';
  // A closed code block ends its line; the marker goes on the next.
  return head.endsWith(FENCE) ? `${head}\n${marker}` : `${head}${marker}`;
}
