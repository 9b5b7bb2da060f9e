import { Ajv, type ErrorObject } from 'ajv';
import { localized } from '../../errors/catalogue.js';
import { CardInvalidError } from '../errors/card-invalid-error.js';
import type { CardPath } from './card-path.js';
import { CARD_MESSAGE_SCHEMA } from './card-schema.js';
import { describeError } from './describe-error.js';
import { isAllowedImageUrl } from './image-url.js';
import { HEADER_TEXT_MAX, MAX_CARDS, MAX_MODULES_TOTAL, SECONDS_TIMESTAMP_HINT_BELOW } from './limits.js';
import type { CardMessage } from './types.js';

/**
 * Compiled once per process (on first use, below): validation is on the hot path of every card
 * render.
 * - `allErrors: false` stops at the first problem, which is the one we report;
 * - `verbose` puts the failing schema and data on the error so messages can be specific;
 * - `strictRequired` is off because the discriminator needs `type` required next to `oneOf`,
 *   where it is defined only in the branches, and `strictTypes` is off because the `if`/`then`
 *   refinements deliberately restate no types (the main branch has already checked them).
 * `unicode` decides how string lengths count: code points (the platform counts characters) or
 * UTF-16 units (`.length`, free, where counting code points walks every string).
 */
function compileCardSchema(unicode: boolean) {
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
  ajv.addKeyword({ keyword: 'x-name', schemaType: 'object' });
  ajv.addKeyword({ keyword: 'x-rules', schemaType: 'object' });
  ajv.addKeyword({
    keyword: 'imageUrl',
    type: 'string',
    schemaType: 'boolean',
    errors: true,
    validate: (enabled: boolean, url: string) => !enabled || isAllowedImageUrl(url),
  });
  return ajv.compile(CARD_MESSAGE_SCHEMA);
}

/** `make()`'s result, made on the first call. */
function onFirstUse<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => {
    if (made === undefined) made = make();
    return made;
  };
}

/*
 * Both are compiled on first use, not at module load: a process that never checks a card (a
 * worker's main thread, whose renders run in threads) pays nothing, and most never meet a card
 * that fails the quick pass.
 */
/** The exact rules: lengths in code points. Decides, and explains, whenever the quick pass fails. */
const exactSchema = onFirstUse(() => compileCardSchema(true));
const validateSchema = (value: unknown): boolean => exactSchema()(value);
const exactErrors = (): ErrorObject[] => (exactSchema().errors ?? []) as ErrorObject[];
/**
 * The quick pass, lengths in UTF-16 units. A string has at least as many units as code points,
 * so passing every maxLength here means passing it exactly; the only minLength is 1, where
 * both counts agree. A card that passes here is valid; one that fails is judged again exactly.
 */
const quickSchema = onFirstUse(() => compileCardSchema(false));
const validateQuick = (value: unknown): boolean => quickSchema()(value);

/** Compiles both schemas now: for a render thread, once it is ready and before its first card. */
export function compileCardSchemas(): void {
  quickSchema();
  exactSchema();
}

/**
 * Checks a parsed card message against every card rule and returns it typed, unchanged (bare
 * strings stay bare strings, no defaults are filled in). `now` (ms) is when countdowns must not
 * yet have ended; tests pass it so results do not depend on the clock.
 * Throws CardInvalidError naming the first offending path and the rule it breaks.
 */
export function validateCard(value: unknown, now: number = Date.now()): CardMessage {
  if (!validateQuick(value) && !validateSchema(value)) {
    const first = exactErrors()[0] as ErrorObject;
    const { at, rule } = describeError(first);
    throw new CardInvalidError(at, rule);
  }
  const message = value as CardMessage;
  checkAcrossCards(message, now, MAX_MODULES_TOTAL);
  return message;
}

/**
 * A copy of a card message in which every text over the shortest text limit (a header's) is one
 * character: where the limits a fit can meet are all that is wrong, the copy passes the schema.
 * Texts are `content` and `text` strings, and bare strings among `elements` and `fields`.
 */
function shortTexts(value: unknown, key: string | null): unknown {
  if (typeof value === 'string') {
    const text = key === 'content' || key === 'text' || key === 'elements' || key === 'fields';
    return text && value.length > HEADER_TEXT_MAX ? 'x' : value;
  }
  if (Array.isArray(value))
    return value.map((v) => shortTexts(v, key === 'elements' || key === 'fields' ? key : null));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shortTexts(v, k)]));
}

/** The first schema error of `value`, or null. */
function schemaError(value: unknown): CardInvalidError | null {
  if (validateQuick(value) || validateSchema(value)) return null;
  const { at, rule } = describeError(exactErrors()[0] as ErrorObject);
  return new CardInvalidError(at, rule);
}

/**
 * validateCard without the limits a fit can meet (at most MAX_CARDS cards, MAX_MODULES_TOTAL
 * modules, the text lengths): what render/fit.ts takes in. Every other rule holds as in
 * validateCard, which each fitted part is checked with again. Checked with the same compiled
 * schema (a second one would cost most of a second to compile): the texts shortened, and a
 * message of more than MAX_CARDS cards card by card.
 */
export function validateCardShape(value: unknown, now: number = Date.now()): CardMessage {
  const short = shortTexts(value, null);
  if (Array.isArray(short) && short.length > MAX_CARDS) {
    for (const [c, card] of short.entries()) {
      const err = schemaError([card]);
      if (err) throw new CardInvalidError([c, ...err.at.slice(1)], err.rule);
    }
  } else {
    const err = schemaError(short);
    if (err) throw err;
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
        throw new CardInvalidError(
          path,
          localized(
            `所有卡片合计最多包含 ${MAX_MODULES_TOTAL} 个模块`,
            `all cards together hold at most ${MAX_MODULES_TOTAL} modules`,
          ),
        );
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
  const seconds = time < SECONDS_TIMESTAMP_HINT_BELOW;
  throw new CardInvalidError(
    [...modulePath, field],
    localized(
      `不能是过去的时间${seconds ? '（看起来是秒；时间以毫秒为单位）' : ''}`,
      `must not lie in the past${seconds ? ' (it looks like seconds; times are in milliseconds)' : ''}`,
    ),
  );
}
