/**
 * A small scanner for the Twig parts of a template, enough to colour them over the message
 * format and to tell where the cursor is for completion. It is not Herald's lexer
 * (src/render/twig/lexer.ts, which the server runs): it never fails, and an unclosed tag simply
 * runs to the end of the text, as the author is usually still typing it.
 */

/** `output` is `{{ }}`, `block` is `{% %}`, `comment` is `{# #}`. */
export type TwigRegionKind = 'output' | 'block' | 'comment';

export interface TwigRegion {
  kind: TwigRegionKind;
  /** Offset of the opening `{`. */
  from: number;
  /** Offset after the closing delimiter (the end of the text when unclosed). */
  to: number;
  /** Offset after the opening delimiter and its `-`/`~` trim mark. */
  innerFrom: number;
  /** Offset of the closing delimiter (with its trim mark); `to` when unclosed. */
  innerTo: number;
  closed: boolean;
}

export type TwigTokenKind =
  | 'delimiter'
  | 'tag'
  | 'keyword'
  | 'atom'
  | 'string'
  | 'number'
  | 'filter'
  | 'test'
  | 'function'
  | 'property'
  | 'variable'
  | 'operator'
  | 'punctuation'
  | 'comment';

export interface TwigToken {
  kind: TwigTokenKind;
  from: number;
  to: number;
}

export interface TwigScan {
  regions: TwigRegion[];
  tokens: TwigToken[];
}

/** Word operators and keywords of Twig expressions (Herald's operator table and tag syntax). */
const KEYWORDS: ReadonlySet<string> = new Set([
  'in',
  'is',
  'not',
  'and',
  'or',
  'b-and',
  'b-or',
  'b-xor',
  'matches',
  'starts',
  'ends',
  'with',
  'as',
  'only',
  'if',
  'else',
]);
const ATOMS: ReadonlySet<string> = new Set([
  'true',
  'false',
  'null',
  'none',
  'TRUE',
  'FALSE',
  'NULL',
  'NONE',
]);

const OPENER = /\{([{%#])([-~])?/g;
const NAME = /[A-Za-z_\u007f-\uffff][A-Za-z0-9_\u007f-\uffff]*(?:-(?:and|or|xor)\b)?/y;
const NUMBER = /[0-9]+(?:\.[0-9]+)?(?:[Ee][+-][0-9]+)?/y;
const SPACE = /[ \t\n\v\f\r]+/y;
const OPERATOR_CHARS = '+-*/%~<>=!?:';
const PUNCTUATION_CHARS = '()[]{},.|';

const KIND_OF: Record<string, TwigRegionKind> = { '{': 'output', '%': 'block', '#': 'comment' };
const CLOSER: Record<TwigRegionKind, string> = { output: '}}', block: '%}', comment: '#}' };

function sticky(re: RegExp, text: string, at: number): string | null {
  re.lastIndex = at;
  const m = re.exec(text);
  return m ? m[0] : null;
}

/** The end of a quoted string starting at `at` (after its closing quote, or `limit` when unclosed). */
function stringEnd(text: string, at: number, limit: number): number {
  const quote = text[at];
  let i = at + 1;
  while (i < limit) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === quote) return i + 1;
    else i++;
  }
  return limit;
}

/** Whether the closing delimiter (with an optional trim mark before it) starts at `i`. */
function closerAt(text: string, i: number, kind: TwigRegionKind): number {
  const closer = CLOSER[kind];
  if (text.startsWith(closer, i)) return closer.length;
  const c = text[i];
  if ((c === '-' || c === '~') && text.startsWith(closer, i + 1)) return closer.length + 1;
  return 0;
}

/** The tokens of an output or block region's inside; answers where the region closes. */
function scanInside(
  text: string,
  region: TwigRegion,
  tokens: TwigToken[],
): { innerTo: number; to: number; closed: boolean } {
  const end = text.length;
  let i = region.innerFrom;
  let depth = 0;
  let first = region.kind === 'block';
  /** The previous significant token (for `|name`, `.name`, `is name`). */
  let prev: { kind: TwigTokenKind; text: string } | null = null;
  while (i < end) {
    if (depth === 0) {
      const close = closerAt(text, i, region.kind);
      if (close > 0) return { innerTo: i, to: i + close, closed: true };
    }
    const space = sticky(SPACE, text, i);
    if (space) {
      i += space.length;
      continue;
    }
    const c = text[i]!;
    if (c === '"' || c === "'") {
      const to = stringEnd(text, i, end);
      tokens.push({ kind: 'string', from: i, to });
      prev = { kind: 'string', text: '' };
      i = to;
      first = false;
      continue;
    }
    const number = sticky(NUMBER, text, i);
    if (number) {
      tokens.push({ kind: 'number', from: i, to: i + number.length });
      prev = { kind: 'number', text: number };
      i += number.length;
      first = false;
      continue;
    }
    const name = sticky(NAME, text, i);
    if (name) {
      const to = i + name.length;
      let kind: TwigTokenKind;
      if (first) kind = 'tag';
      else if (prev?.kind === 'punctuation' && prev.text === '|') kind = 'filter';
      else if (prev?.kind === 'punctuation' && prev.text === '.')
        kind = text[to] === '(' ? 'function' : 'property';
      else if (prev?.kind === 'keyword' && (prev.text === 'is' || prev.text === 'not') && !KEYWORDS.has(name))
        kind = 'test';
      else if (KEYWORDS.has(name)) kind = 'keyword';
      else if (ATOMS.has(name)) kind = 'atom';
      else if (text[to] === '(') kind = 'function';
      else kind = 'variable';
      tokens.push({ kind, from: i, to });
      prev = { kind, text: name };
      i = to;
      first = false;
      continue;
    }
    first = false;
    if (PUNCTUATION_CHARS.includes(c)) {
      if (c === '(' || c === '[' || c === '{') depth++;
      else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth--;
      tokens.push({ kind: 'punctuation', from: i, to: i + 1 });
      prev = { kind: 'punctuation', text: c };
      i++;
      continue;
    }
    if (OPERATOR_CHARS.includes(c)) {
      let to = i + 1;
      while (to < end && OPERATOR_CHARS.includes(text[to]!) && closerAt(text, to, region.kind) === 0) to++;
      tokens.push({ kind: 'operator', from: i, to });
      prev = { kind: 'operator', text: text.slice(i, to) };
      i = to;
      continue;
    }
    // Anything else (a stray character) is skipped: the server's compile error will name it.
    i++;
  }
  return { innerTo: end, to: end, closed: false };
}

/** A `{% verbatim %}` block: what follows, up to `{% endverbatim %}`, is text. */
function isVerbatim(text: string, region: TwigRegion): boolean {
  return region.kind === 'block' && /^\s*verbatim\s*$/.test(text.slice(region.innerFrom, region.innerTo));
}
const END_VERBATIM = /\{%[-~]?\s*endverbatim\s*[-~]?%\}/g;

/** Every Twig region of `text` and the tokens inside them, in order. */
export function scanTwig(text: string): TwigScan {
  const regions: TwigRegion[] = [];
  const tokens: TwigToken[] = [];
  let at = 0;
  while (at < text.length) {
    OPENER.lastIndex = at;
    const m = OPENER.exec(text);
    if (!m) break;
    const kind = KIND_OF[m[1]!]!;
    const from = m.index;
    const innerFrom = from + m[0].length;
    const region: TwigRegion = {
      kind,
      from,
      to: text.length,
      innerFrom,
      innerTo: text.length,
      closed: false,
    };
    tokens.push({ kind: 'delimiter', from, to: innerFrom });
    if (kind === 'comment') {
      let i = innerFrom;
      let close = 0;
      for (; i < text.length; i++) {
        close = closerAt(text, i, 'comment');
        if (close > 0) break;
      }
      region.innerTo = i;
      region.to = i + close;
      region.closed = close > 0;
      tokens.push({ kind: 'comment', from: innerFrom, to: region.innerTo });
    } else {
      const firstToken = tokens.length;
      Object.assign(region, scanInside(text, region, tokens));
      if (isVerbatim(text, region)) {
        // The tag itself is coloured; the raw part after it is left to the format's colours.
        tokens.splice(firstToken);
        tokens.push({ kind: 'tag', from: region.innerFrom, to: region.innerTo });
      }
    }
    if (region.closed) tokens.push({ kind: 'delimiter', from: region.innerTo, to: region.to });
    regions.push(region);
    at = region.to;
    if (region.closed && isVerbatim(text, region)) {
      END_VERBATIM.lastIndex = at;
      const end = END_VERBATIM.exec(text);
      at = end ? end.index : text.length;
    }
  }
  return { regions, tokens };
}

/** The region whose inside holds `pos` (between its delimiters, or after the opener when unclosed). */
export function regionAt(regions: readonly TwigRegion[], pos: number): TwigRegion | undefined {
  for (const r of regions) {
    if (r.innerFrom > pos) return undefined;
    if (pos <= r.innerTo) return r;
  }
  return undefined;
}
