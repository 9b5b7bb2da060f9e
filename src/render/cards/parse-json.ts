import { CardSyntaxError } from '../errors/card-syntax-error.js';
import { lineColumn } from './line-column.js';

const POSITION = /\s*(?:in JSON )?at position (\d+)(?: \(line \d+ column \d+\))?/;
/** V8 quotes (part of) the input in some messages; the position says more, and briefly. */
const QUOTED_INPUT = /, ".*" is not valid JSON$/s;

/**
 * JSON.parse, with the failure position given as line and column (an offset into a rendered
 * template is something nobody can count by hand).
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const raw = err instanceof Error ? err.message : String(err);
    const match = POSITION.exec(raw);
    const detail = (match ? raw.slice(0, match.index) + raw.slice(match.index + match[0].length) : raw)
      .replace(QUOTED_INPUT, '')
      .trim();
    const offset = match ? Number(match[1]) : errorOffset(text);
    throw new CardSyntaxError('json', detail, lineColumn(text, offset));
  }
}

/**
 * Where parsing goes wrong when V8 does not say ("Unexpected token ','"): the longest prefix
 * that fails only at its end is still a valid start of JSON, and validity of prefixes is
 * monotonic, so a binary search finds the first bad character. Only runs on the error path.
 */
function errorOffset(text: string): number {
  let good = 0;
  let bad = text.length;
  while (bad - good > 1) {
    const middle = Math.floor((good + bad) / 2);
    if (failsOnlyAtEnd(text.slice(0, middle))) good = middle;
    else bad = middle;
  }
  return good;
}

function failsOnlyAtEnd(prefix: string): boolean {
  try {
    JSON.parse(prefix);
    return true;
  } catch (err) {
    const message = err instanceof Error ? err.message : '';
    if (message.includes('end of JSON input')) return true;
    const match = POSITION.exec(message);
    return match !== null && Number(match[1]) >= prefix.length;
  }
}
