import { CardSyntaxError } from '../errors/card-syntax-error.js';
import { lineColumn } from './line-column.js';

/**
 * JSON.parse, with V8's "at position N" turned into a line and column (the position is an
 * offset into a rendered template, which nobody can count by hand).
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const raw = err instanceof Error ? err.message : String(err);
    const match = /\s*(?:in JSON )?at position (\d+)(?: \(line \d+ column \d+\))?/.exec(raw);
    if (match) {
      const detail = raw.slice(0, match.index) + raw.slice(match.index + match[0].length);
      throw new CardSyntaxError('json', detail.trim(), lineColumn(text, Number(match[1])));
    }
    // "Unexpected end of JSON input" has no position: the end is where it went wrong.
    const position = /end of JSON input/.test(raw) ? lineColumn(text, text.length) : undefined;
    throw new CardSyntaxError('json', raw, position);
  }
}
