import { CardInvalidError } from '../errors/card-invalid-error.js';
import { CardSyntaxError } from '../errors/card-syntax-error.js';
import { excerptAt } from '../errors/excerpt.js';
import { lineColumn } from './line-column.js';
import { locateCardValue } from './locate.js';
import { parseJson } from './parse-json.js';
import { parseXml } from './parse-xml.js';
import { parseYaml } from './parse-yaml.js';
import type { CardFormat, CardMessage } from './types.js';
import { validateCard } from './validate-card.js';

export { CardInvalidError } from '../errors/card-invalid-error.js';
export { CardSyntaxError, type CardSyntaxPosition } from '../errors/card-syntax-error.js';
export * from './limits.js';
export type * from './types.js';
export { compileCardSchemas, validateCard } from './validate-card.js';

const PARSERS: Readonly<Record<CardFormat, (text: string) => unknown>> = {
  json: parseJson,
  yaml: parseYaml,
  xml: parseXml,
};

/**
 * A rendered card template (JSON, YAML or XML text) to the card JSON of a type-10 message.
 * Throws CardSyntaxError when the text does not parse (or uses a refused construct) and
 * CardInvalidError when the card breaks a rule. `now` (ms) is for the countdown past-time check.
 */
export function convertCard(text: string, format: CardFormat, now: number = Date.now()): CardMessage {
  const { value, locate } = parseCardText(text, format);
  try {
    return validateCard(value, now);
  } catch (err) {
    throw locate(err);
  }
}

/**
 * A rendered card template parsed, not yet validated, and how to place a validation error of
 * it in the text: for callers that validate their own way (render/fit.ts). Throws
 * CardSyntaxError as convertCard does.
 */
export function parseCardText(
  text: string,
  format: CardFormat,
): { value: unknown; locate: (err: unknown) => unknown } {
  let value: unknown;
  try {
    value = PARSERS[format](text);
  } catch (err) {
    // The parsers tell where; the excerpt of the rendered text there is added here, once.
    throw err instanceof CardSyntaxError ? err.withExcerpt(text) : err;
  }
  const locate = (err: unknown): unknown => {
    // Validation knows the value's path; where that value is in the text is found here, once.
    if (!(err instanceof CardInvalidError) || err.position) return err;
    const at = locateCardValue(text, format, err.at);
    const position = lineColumn(text, at);
    return err.locatedAt(position, excerptAt(text, position));
  };
  return { value, locate };
}
