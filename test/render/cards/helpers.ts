import { expect } from 'vitest';
import type { LocalizedText } from '../../../src/errors/catalogue.js';
import { CARD_MESSAGE_SCHEMA } from '../../../src/render/cards/card-schema.js';
import { CardInvalidError, IMAGE_EXTENSIONS, validateCard } from '../../../src/render/cards/index.js';

/** A fixed clock, so countdown past-time checks do not depend on when the tests run. */
export const NOW = 1_700_000_000_000;
export const LATER = NOW + 3_600_000;

export const card = (...modules: unknown[]): unknown[] => [{ type: 'card', modules }];

/**
 * The words a Chinese rule may keep in Latin letters: the card format's own names (fields, types
 * and values, as the schema spells them) and the image extensions.
 */
function schemaWords(): ReadonlySet<string> {
  const words = new Set<string>([...IMAGE_EXTENSIONS, 'true', 'false', 'null']);
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const schema = node as Record<string, unknown>;
    if (typeof schema.properties === 'object' && schema.properties !== null) {
      for (const key of Object.keys(schema.properties)) words.add(key);
    }
    if (typeof schema.const === 'string') words.add(schema.const);
    if (Array.isArray(schema.enum)) for (const v of schema.enum) words.add(String(v));
    for (const [key, value] of Object.entries(schema)) if (key !== 'x-rules' && key !== 'x-name') walk(value);
  };
  walk(CARD_MESSAGE_SCHEMA);
  return words;
}
const SCHEMA_WORDS = schemaWords();

/**
 * The Latin-letter words of a Chinese text that are not the card format's own names. Quoted
 * values, a colour such as #aaaaaa and a file extension are the author's data, not words.
 */
export function englishWords(zh: string): string[] {
  const bare = zh
    .replace(/"[^"]*"/g, '')
    .replace(/#[0-9a-fA-F]+/g, '')
    .replace(/\.[A-Za-z0-9]+/g, '');
  return (bare.match(/[A-Za-z][A-Za-z-]*/g) ?? []).filter((w) => !SCHEMA_WORDS.has(w));
}

/** Asserts the value is refused with exactly this `path: rule` (in English), and in Chinese too. */
export function expectInvalid(value: unknown, detail: string): void {
  let caught: unknown;
  try {
    validateCard(value, NOW);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(CardInvalidError);
  const error = caught as CardInvalidError;
  const localized = error.params.detail as LocalizedText;
  expect(localized['en-US']).toBe(detail);
  expect(`${error.data?.path}: ${error.data?.rule}`).toBe(detail);
  expect(error.rule['en-US']).toBe(error.data?.rule);
  expect(localized['zh-CN']).toBe(`${error.path}：${error.rule['zh-CN']}`);
  expect(englishWords(error.rule['zh-CN'])).toEqual([]);
}
