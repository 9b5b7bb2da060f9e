import { INT64_MAX, INT64_MIN, int64 } from './twig/runtime/int64.js';
import { ArrayBuilder, normalizeStringKey, PhpArray } from './twig/runtime/php-array.js';
import type { Value } from './twig/runtime/value.js';

/** PHP's json_decode default depth. */
const MAX_DEPTH = 512;

/**
 * Parses a JSON request body the way PHP's json_decode($json, true) sees it, keeping what
 * JSON.parse loses: object key order when keys look like integers (JS moves "1", "2" first; PHP
 * keeps insertion order, with such keys turned into integers) and integers beyond 2^53 (PHP keeps
 * them exact within int64: they become bigints, see twig/runtime/int64.ts; `-0` is the int 0).
 * Render accepts the result as `data`. Floats written as integers (`1.0`) still become JS
 * numbers that read as ints. Throws SyntaxError like JSON.parse.
 */
export function parseJsonData(text: string): unknown {
  // Fast path: JSON.parse already gives PHP's order unless some object has an integer-like key
  // (JS lists those first, ascending), and PHP's numbers unless one is beyond 2^53 or -0. Most
  // webhook bodies have none, and render views plain objects without copying them.
  const parsed: unknown = JSON.parse(text);
  return needsOrderedParse(parsed) ? parseOrdered(text) : parsed;
}

/**
 * The `key` member of a JSON object text, decoded as parseJsonData decodes a whole body: for a
 * request that carries a template's input as one of its fields (a preview's `data`), so that
 * the input renders as it would when sent. Undefined when the text is no object or has no such
 * member.
 */
export function parseJsonDataMember(text: string, key: string): unknown {
  const whole = parseJsonData(text);
  if (whole instanceof PhpArray) return whole.get(normalizeStringKey(key));
  if (whole === null || typeof whole !== 'object' || Array.isArray(whole) || !Object.hasOwn(whole, key)) {
    return undefined;
  }
  return (whole as Record<string, unknown>)[key];
}

/** JS array-index keys ("0", "42"): the ones JS objects reorder. */
const INDEX_KEY = /^(?:0|[1-9]\d{0,9})$/;

const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * A number JSON.parse may have read differently from PHP: beyond 2^53 (an integer there is exact
 * in PHP) or -0 (PHP reads `-0` as the int 0). Floats such as 1e20 take the exact parser too.
 */
function inexact(n: number): boolean {
  return n > SAFE || n < -SAFE || (n === 0 && 1 / n < 0);
}

/**
 * Whether JSON.parse's result can differ from PHP's: an object with an array-index key, a number
 * that `inexact` flags, or nesting past PHP's depth limit (the exact parser then fails as
 * json_decode does). JS puts index keys before all others, so an object's first key tells.
 */
function needsOrderedParse(root: unknown): boolean {
  if (typeof root === 'number') return inexact(root);
  const stack: Array<{ v: unknown; depth: number }> = [{ v: root, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_DEPTH) return true;
    if (Array.isArray(v)) {
      for (const item of v) {
        if (typeof item === 'number') {
          if (inexact(item)) return true;
        } else if (item !== null && typeof item === 'object') stack.push({ v: item, depth: depth + 1 });
      }
      continue;
    }
    let first = true;
    for (const key in v) {
      if (first && INDEX_KEY.test(key) && Number(key) < 2 ** 32 - 1) return true;
      first = false;
      const item = (v as Record<string, unknown>)[key];
      if (typeof item === 'number') {
        if (inexact(item)) return true;
      } else if (item !== null && typeof item === 'object') stack.push({ v: item, depth: depth + 1 });
    }
  }
  return false;
}

/** A JSON number token as json_decode reads it: integers within int64 exact, the rest floats. */
function jsonNumber(tok: string): Value {
  const n = Number(tok);
  if (n === 0) return /[.eE]/.test(tok) ? n : 0; // -0.0 stays a float
  if (Number.isSafeInteger(n)) return n;
  if (!(Math.abs(n) < 9.3e18) || !/^-?[0-9]+$/.test(tok)) return n;
  const b = BigInt(tok);
  return b > INT64_MAX || b < INT64_MIN ? n : int64(b);
}

/** The exact decoder: PHP's key order and depth limit, at the cost of building PHP arrays. */
function parseOrdered(text: string): unknown {
  let i = 0;
  const n = text.length;
  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} in JSON at position ${i}`);
  };
  const str = (): string => {
    // the string token, validated and decoded by JSON.parse itself
    const start = i;
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c === 0x5c) i++;
      else if (c < 0x20) fail('Bad control character in string literal');
      i++;
    }
    if (i >= n) fail('Unterminated string');
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (depth: number): Value => {
    if (depth > MAX_DEPTH) fail('Maximum stack depth exceeded');
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const b = new ArrayBuilder();
      ws();
      if (text[i] === '}') {
        i++;
        return b.build();
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('Expected property name');
        const key = str();
        ws();
        if (text[i] !== ':') fail("Expected ':' after property name");
        i++;
        b.set(normalizeStringKey(key), value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return b.build();
        }
        fail("Expected ',' or '}' after property value");
      }
    }
    if (c === '[') {
      i++;
      const items: Value[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arrayOf(items);
      }
      for (;;) {
        items.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return arrayOf(items);
        }
        fail("Expected ',' or ']' after array element");
      }
    }
    if (c === '"') return str();
    const m = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
    m.lastIndex = i;
    const tok = m.exec(text);
    if (!tok) return fail(`Unexpected token ${c ?? 'end'}`);
    i += tok[0].length;
    if (tok[0] === 'true') return true;
    if (tok[0] === 'false') return false;
    if (tok[0] === 'null') return null;
    return jsonNumber(tok[0]);
  };
  const result = value(0);
  ws();
  if (i < n) fail('Unexpected non-whitespace character after JSON');
  return result;
}

function arrayOf(items: Value[]): PhpArray {
  const b = new ArrayBuilder();
  for (const v of items) b.push(v);
  return b.build();
}
