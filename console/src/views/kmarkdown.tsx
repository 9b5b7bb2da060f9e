import type { ComponentChildren, VNode } from 'preact';
import { translator } from '../i18n.ts';

/**
 * KMarkdown, the platform's message markup, drawn as Preact elements. Every piece of source text
 * becomes a text node or an attribute value, never markup (no innerHTML), so a `<script>` in a
 * message is shown as the characters it is. Links open only for http and https addresses.
 *
 * Syntax: **bold**, *italic*, ***both***, ~~strike~~, (ins)underline(ins), (spl)spoiler(spl),
 * [text](url), `code`, ```lang fenced code```, a `---` line (divider), `> ` quote (until a blank
 * line), (met)user id|all|here(met), (rol)role id(rol), (chn)channel id(chn),
 * (emj)name(emj)[id], a backslash before punctuation (the character itself), line breaks kept.
 *
 * The drawing functions build the elements eagerly (they are not components), so a caller can
 * catch anything they throw and fall back to the raw text.
 */

const t = translator({
  'zh-CN': {
    all: '全体成员',
    here: '在线成员',
    role: '角色',
    spoiler: '剧透：悬停以显示',
    linkBlocked: '不是 http/https 链接，未生成链接',
  },
  'en-US': {
    all: 'all',
    here: 'here',
    role: 'role',
    spoiler: 'Spoiler: hover to reveal',
    linkBlocked: 'Not an http/https address, so not made a link',
  },
});

/** Deeper nesting than this is drawn as text: it keeps hostile input from building huge trees. */
const MAX_DEPTH = 24;
/** Mention, channel, role and emoji ids are short; a longer run between tags is not one. */
const MAX_TAG_CONTENT = 128;
const MAX_URL = 4096;
const PUNCT = /[!-/:-@[-`{-~]/;

/** The address for an href or src when it is an absolute http(s) URL, else null. */
export function safeUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  if (!/^https?:\/\//i.test(trimmed)) return null;
  try {
    const url = new URL(trimmed);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

type Child = VNode | string;

/** Pushes text, turning each line end into a <br>. */
function pushText(out: Child[], text: string): void {
  if (text === '') return;
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (i > 0) out.push(<br />);
    if (line !== '') out.push(line);
  });
}

const runLength = (s: string, at: number, ch: string): number => {
  let n = 0;
  while (s[at + n] === ch) n++;
  return n;
};

/** Paired inline delimiters, longest first so `***` is tried before `**` and `*`. */
const PAIRS: readonly { open: string; tag: (c: Child[]) => VNode }[] = [
  {
    open: '***',
    tag: (c) => (
      <strong>
        <em>{c}</em>
      </strong>
    ),
  },
  { open: '**', tag: (c) => <strong>{c}</strong> },
  { open: '~~', tag: (c) => <del>{c}</del> },
  { open: '*', tag: (c) => <em>{c}</em> },
  { open: '(ins)', tag: (c) => <u>{c}</u> },
  {
    open: '(spl)',
    tag: (c) => (
      <span class="kmd-spoiler" title={t('spoiler')}>
        {c}
      </span>
    ),
  },
];

/** A parse of one source string; remembers failed searches so unclosed openers stay linear. */
class Parser {
  private readonly failedFrom = new Map<string, number>();

  private readonly nextAt = new Map<string, { from: number; at: number }>();

  constructor(private readonly s: string) {}

  /** s.indexOf(ch, from), remembering the last answer so repeated failed looks stay linear. */
  private nextIndex(ch: string, from: number): number {
    const last = this.nextAt.get(ch);
    if (last && from >= last.from && (last.at < 0 || from <= last.at)) return last.at;
    const at = this.s.indexOf(ch, from);
    this.nextAt.set(ch, { from, at });
    return at;
  }

  /** The end of the code span opened by the backtick run at `at`, or -1. */
  private codeEnd(at: number, end: number): number {
    const n = runLength(this.s, at, '`');
    const key = `\`${n}|${end}`;
    const failed = this.failedFrom.get(key);
    if (failed !== undefined && at >= failed) return -1;
    let k = at + n;
    while (k < end) {
      const next = this.s.indexOf('`', k);
      if (next < 0 || next >= end) break;
      const m = runLength(this.s, next, '`');
      if (m === n && next + m <= end) return next;
      k = next + m;
    }
    this.failedFrom.set(key, Math.min(failed ?? at, at));
    return -1;
  }

  /**
   * Where `delim` closes after `from` (before `end`), skipping escapes and code spans; -1 when
   * it does not. Star and tilde closers must be a run of exactly their length and follow a
   * non-space character.
   */
  private findClose(delim: string, from: number, end: number, limit = Number.POSITIVE_INFINITY): number {
    const key = `${delim}|${end}`;
    const cacheable = limit === Number.POSITIVE_INFINITY;
    const failed = cacheable ? this.failedFrom.get(key) : undefined;
    if (failed !== undefined && from >= failed) return -1;
    const s = this.s;
    const runChar = delim[0] === '*' || delim[0] === '~' ? delim[0] : '';
    const stop = Math.min(end, from + limit);
    let k = from;
    while (k < stop) {
      const c = s[k];
      if (c === '\\' && k + 1 < end && PUNCT.test(s[k + 1]!)) {
        k += 2;
        continue;
      }
      if (c === '`' && delim !== '`') {
        const close = this.codeEnd(k, end);
        const n = runLength(s, k, '`');
        k = close < 0 ? k + n : close + n;
        continue;
      }
      if (runChar && c === runChar) {
        const n = runLength(s, k, runChar);
        if (n === delim.length && k > from && !/\s/.test(s[k - 1]!)) return k;
        k += n;
        continue;
      }
      if (!runChar && s.startsWith(delim, k)) return k + delim.length <= end ? k : -1;
      k++;
    }
    if (cacheable) this.failedFrom.set(key, Math.min(failed ?? from, from));
    return -1;
  }

  /** Inline content of s[start, end): text, emphasis, code, links, mentions. */
  inline(start: number, end: number, depth: number, inLink = false): Child[] {
    const s = this.s;
    const out: Child[] = [];
    let buf = '';
    const flush = () => {
      pushText(out, buf);
      buf = '';
    };
    let i = start;
    outer: while (i < end) {
      const c = s[i]!;
      if (c === '\\' && i + 1 < end && PUNCT.test(s[i + 1]!)) {
        buf += s[i + 1];
        i += 2;
        continue;
      }
      if (c === '`') {
        const n = runLength(s, i, '`');
        const close = this.codeEnd(i, end);
        if (close < 0) {
          buf += s.slice(i, i + n);
          i += n;
          continue;
        }
        flush();
        out.push(<code class="kmd-code">{s.slice(i + n, close)}</code>);
        i = close + n;
        continue;
      }
      if (depth < MAX_DEPTH) {
        for (const pair of PAIRS) {
          if (!s.startsWith(pair.open, i)) continue;
          const len = pair.open.length;
          if (pair.open[0] === '*' || pair.open[0] === '~') {
            // A run longer than the delimiter is not this delimiter; an opener needs text next.
            if (runLength(s, i, pair.open[0]) !== len) continue;
            if (i + len >= end || /\s/.test(s[i + len]!)) continue;
          }
          const close = this.findClose(pair.open, i + len, end);
          if (close <= i + len) continue;
          flush();
          out.push(pair.tag(this.inline(i + len, close, depth + 1, inLink)));
          i = close + len;
          continue outer;
        }
        const chip = this.chip(i, end);
        if (chip) {
          flush();
          out.push(chip.node);
          i = chip.next;
          continue;
        }
        if (c === '[' && !inLink) {
          const link = this.link(i, end, depth);
          if (link) {
            flush();
            out.push(link.node);
            i = link.next;
            continue;
          }
        }
      }
      // An unmatched run of stars or tildes is text as a whole, so its tail opens nothing.
      const n = c === '*' || c === '~' ? runLength(s, i, c) : 1;
      buf += s.slice(i, i + n);
      i += n;
    }
    flush();
    return out;
  }

  /** (met)…(met), (rol)…(rol), (chn)…(chn), (emj)name(emj)[id] at `i`. */
  private chip(i: number, end: number): { node: VNode; next: number } | null {
    const s = this.s;
    if (s[i] !== '(') return null;
    const tag = s.slice(i, i + 5);
    if (tag !== '(met)' && tag !== '(rol)' && tag !== '(chn)' && tag !== '(emj)') return null;
    const close = this.findClose(tag, i + 5, end, MAX_TAG_CONTENT + 1);
    if (close <= i + 5) return null;
    const id = s.slice(i + 5, close);
    if (id.includes('\n')) return null;
    let next = close + 5;
    if (tag === '(met)') {
      const group = id === 'all' || id === 'here';
      return {
        node: (
          <span class={`kmd-mention ${group ? `kmd-mention-${id}` : 'kmd-mention-user'}`}>
            @{group ? t(id) : id}
          </span>
        ),
        next,
      };
    }
    if (tag === '(rol)') {
      return {
        node: (
          <span class="kmd-mention kmd-mention-role">
            @{t('role')} {id}
          </span>
        ),
        next,
      };
    }
    if (tag === '(chn)') return { node: <span class="kmd-channel">#{id}</span>, next };
    // (emj)name(emj)[id]: a server emoji, drawn by its name (the image lives on the platform).
    let emojiId = '';
    if (s[next] === '[') {
      const closeId = s.indexOf(']', next + 1);
      if (closeId > next && closeId < end && closeId - next <= MAX_TAG_CONTENT + 1) {
        emojiId = s.slice(next + 1, closeId);
        next = closeId + 1;
      }
    }
    return {
      node: (
        <span class="kmd-emoji" title={emojiId || undefined}>
          :{id}:
        </span>
      ),
      next,
    };
  }

  /** [text](url) at `i`: a link for http(s) addresses, otherwise the text and the address. */
  private link(i: number, end: number, depth: number): { node: VNode; next: number } | null {
    const s = this.s;
    const closeText = this.findClose(']', i + 1, end);
    if (closeText < 0 || s[closeText + 1] !== '(') return null;
    // The address ends at the `)` that balances its `(`, within one line and a bounded length.
    let closeUrl = -1;
    let open = 0;
    const from = closeText + 2;
    const firstClose = this.nextIndex(')', from);
    const lineStop = this.nextIndex('\n', from);
    const stop = Math.min(end, from + MAX_URL, lineStop < 0 ? end : lineStop);
    if (firstClose < 0 || firstClose >= stop) return null;
    for (let k = from; k < stop; k++) {
      if (s[k] === '(') open++;
      else if (s[k] === ')') {
        if (open === 0) {
          closeUrl = k;
          break;
        }
        open--;
      }
    }
    if (closeUrl < 0) return null;
    const raw = s.slice(closeText + 2, closeUrl);
    const text = this.inline(i + 1, closeText, depth + 1, true);
    const href = safeUrl(raw);
    const node = href ? (
      <a class="kmd-link" href={href} target="_blank" rel="noopener noreferrer">
        {text.length > 0 ? text : raw}
      </a>
    ) : (
      <span class="kmd-link-inert" title={t('linkBlocked')}>
        {text} ({raw})
      </span>
    );
    return { node, next: closeUrl + 1 };
  }
}

/** Blocks of `s`: paragraphs (line breaks kept), dividers, quotes and fenced code. */
function blocks(source: string, depth: number): VNode[] {
  if (source === '') return [];
  const s = source.replace(/\r\n?/g, '\n');
  const lines = s.split('\n');
  const out: VNode[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length === 0) return;
    const text = para.join('\n');
    out.push(<p class="kmd-p">{new Parser(text).inline(0, text.length, depth)}</p>);
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^\s*```(.*)$/.exec(line);
    if (fence) {
      const rest = fence[1]!;
      const sameLine = rest.indexOf('```');
      if (sameLine >= 0) {
        flush();
        out.push(
          <pre class="kmd-pre">
            <code>{rest.slice(0, sameLine)}</code>
          </pre>,
        );
        if (rest.slice(sameLine + 3).trim() !== '') para.push(rest.slice(sameLine + 3));
        continue;
      }
      let j = i + 1;
      while (j < lines.length && !lines[j]!.includes('```')) j++;
      if (j < lines.length) {
        flush();
        const closing = lines[j]!;
        const at = closing.indexOf('```');
        const body = lines.slice(i + 1, j);
        if (closing.slice(0, at).trim() !== '') body.push(closing.slice(0, at));
        const lang = rest.trim();
        out.push(
          <pre class="kmd-pre" data-lang={lang || undefined}>
            <code>{body.join('\n')}</code>
          </pre>,
        );
        if (closing.slice(at + 3).trim() !== '') para.push(closing.slice(at + 3));
        i = j;
        continue;
      }
    }
    if (line.trim() === '---') {
      flush();
      out.push(<hr class="kmd-hr" />);
      continue;
    }
    if (line.startsWith('>') && depth < MAX_DEPTH) {
      flush();
      // A quote runs until a blank line, which ends it and is not drawn.
      const quoted: string[] = [];
      let j = i;
      while (j < lines.length && lines[j]!.trim() !== '') {
        quoted.push(lines[j]!.replace(/^> ?/, ''));
        j++;
      }
      out.push(<blockquote class="kmd-quote">{blocks(quoted.join('\n'), depth + 1)}</blockquote>);
      i = j;
      continue;
    }
    para.push(line);
  }
  flush();
  return out;
}

/** KMarkdown source drawn as blocks (paragraphs, quotes, code, dividers). */
export function drawKmarkdown(source: string): VNode {
  return <div class="kmd">{blocks(source, 0)}</div>;
}

/** KMarkdown drawn inline only (a button's text): block syntax stays text, line ends are <br>. */
export function drawKmarkdownInline(source: string): VNode {
  return <span class="kmd kmd-inline">{new Parser(source).inline(0, source.length, 0)}</span>;
}

/** KMarkdown as a component, for screens that draw a single text. */
export function KMarkdown(props: { source: string; inline?: boolean }): ComponentChildren {
  return props.inline ? drawKmarkdownInline(props.source) : drawKmarkdown(props.source);
}
