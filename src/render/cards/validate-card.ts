import { Ajv, type ErrorObject } from 'ajv';
import { CardInvalidError } from '../errors/card-invalid-error.js';
import type { CardPath } from './card-path.js';
import { CARD_MESSAGE_SCHEMA, type SchemaNode } from './card-schema.js';
import { describeError } from './describe-error.js';
import { isAllowedImageUrl } from './image-url.js';
import { MAX_MODULES_TOTAL, SECONDS_TIMESTAMP_HINT_BELOW } from './limits.js';
import type { CardMessage } from './types.js';

/**
 * Compiled once at module load: validation is on the hot path of every card render.
 * - `allErrors: false` stops at the first problem, which is the one we report;
 * - `verbose` puts the failing schema and data on the error so messages can be specific;
 * - `strictRequired` is off because the discriminator needs `type` required next to `oneOf`,
 *   where it is defined only in the branches, and `strictTypes` is off because the `if`/`then`
 *   refinements deliberately restate no types (the main branch has already checked them).
 * `unicode` decides how string lengths count: code points (the platform counts characters) or
 * UTF-16 units (`.length`, free, where counting code points walks every string).
 */
function compileCardSchema(unicode: boolean, schema: SchemaNode = CARD_MESSAGE_SCHEMA) {
  const ajv = new Ajv({
    allErrors: false,
    verbose: true,
    discriminator: true,
    strict: true,
    strictRequired: false,
    strictTypes: false,
    unicode,
    // ajv reports `unicode` as deprecated on every compile; strict mode throws on schema
    // mistakes rather than logging them, so there is nothing else to lose here.
    logger: false,
  });
  ajv.addKeyword({ keyword: 'x-name', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'x-rules', schemaType: 'object' });
  ajv.addKeyword({
    keyword: 'imageUrl',
    type: 'string',
    schemaType: 'boolean',
    errors: true,
    validate: (enabled: boolean, url: string) => !enabled || isAllowedImageUrl(url),
  });
  return ajv.compile(schema);
}

/** The exact rules: lengths in code points. Decides, and explains, whenever the quick pass fails. */
const validateSchema = compileCardSchema(true);
/**
 * The quick pass, lengths in UTF-16 units. A string has at least as many units as code points,
 * so passing every maxLength here means passing it exactly; the only minLength is 1, where
 * both counts agree. A card that passes here is valid; one that fails is judged again exactly.
 */
const validateQuick = compileCardSchema(false);

/**
 * Checks a parsed card message against every card rule and returns it typed, unchanged (bare
 * strings stay bare strings, no defaults are filled in). `now` (ms) is when countdowns must not
 * yet have ended; tests pass it so results do not depend on the clock.
 * Throws CardInvalidError naming the first offending path and the rule it breaks.
 */
export function validateCard(value: unknown, now: number = Date.now()): CardMessage {
  if (!validateQuick(value) && !validateSchema(value)) {
    const first = (validateSchema.errors as ErrorObject[])[0] as ErrorObject;
    const { at, rule } = describeError(first);
    throw new CardInvalidError(at, rule);
  }
  const message = value as CardMessage;
  checkAcrossCards(message, now, MAX_MODULES_TOTAL);
  return message;
}

/**
 * The card schema without the limits a fit can meet (render/fit.ts): the number of cards and
 * every text length. Everything else (structure, types, element counts, images) stays a rule.
 */
function withoutFitLimits(node: unknown, root: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => withoutFitLimits(n, false));
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'maxLength' || (root && k === 'maxItems')) continue;
    // Annotations are data, not schemas: copied as they are.
    out[k] = k === 'x-rules' || k === 'x-name' ? v : withoutFitLimits(v, false);
  }
  return out;
}

/** Compiled on first use: only messages over the limits of a pipe that fits them need it. */
let validateShape: ReturnType<typeof compileCardSchema> | undefined;

/**
 * validateCard without the limits a fit can meet (at most MAX_CARDS cards, MAX_MODULES_TOTAL
 * modules, the text lengths): what render/fit.ts takes in. Every other rule holds as in
 * validateCard, which each fitted part is checked with again.
 */
export function validateCardShape(value: unknown, now: number = Date.now()): CardMessage {
  validateShape ??= compileCardSchema(false, withoutFitLimits(CARD_MESSAGE_SCHEMA, true) as SchemaNode);
  if (!validateShape(value)) {
    const first = (validateShape.errors as ErrorObject[])[0] as ErrorObject;
    const { at, rule } = describeError(first);
    throw new CardInvalidError(at, rule);
  }
  const message = value as CardMessage;
  checkAcrossCards(message, now, Number.POSITIVE_INFINITY);
  return message;
}

/** The rules a compiled schema cannot hold: a count across cards, and times relative to `now`. */
function checkAcrossCards(message: CardMessage, now: number, maxModules: number): void {
  let total = 0;
  for (const [c, card] of message.entries()) {
    for (const [m, module] of card.modules.entries()) {
      total += 1;
      const path = [c, 'modules', m];
      if (total > maxModules) {
        throw new CardInvalidError(path, `all cards together hold at most ${MAX_MODULES_TOTAL} modules`);
      }
      if (module.type === 'countdown') {
        checkNotPast(path, 'endTime', module.endTime, now);
        if (module.startTime !== undefined) checkNotPast(path, 'startTime', module.startTime, now);
      }
    }
  }
}

function checkNotPast(modulePath: CardPath, field: string, time: number, now: number): void {
  if (time >= now) return;
  const hint =
    time < SECONDS_TIMESTAMP_HINT_BELOW ? ' (it looks like seconds; times are in milliseconds)' : '';
  throw new CardInvalidError([...modulePath, field], `must not lie in the past${hint}`);
}
