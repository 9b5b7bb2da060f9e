import { CardSyntaxError } from '../errors/card-syntax-error.js';
import { firstJsonError } from './json-first-error.js';
import { lineColumn } from './line-column.js';

/**
 * JSON.parse, with the failure given as line and column (an offset into a rendered template is
 * something nobody can count by hand). Where and why come from firstJsonError, never from the
 * engine's message.
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const error = firstJsonError(text) ?? { offset: 0, message: 'not valid JSON' };
    throw new CardSyntaxError('json', error.message, lineColumn(text, error.offset));
  }
}
