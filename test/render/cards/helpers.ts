import { expect } from 'vitest';
import { CardInvalidError, validateCard } from '../../../src/render/cards/index.js';

/** A fixed clock, so countdown past-time checks do not depend on when the tests run. */
export const NOW = 1_700_000_000_000;
export const LATER = NOW + 3_600_000;

export const card = (...modules: unknown[]): unknown[] => [{ type: 'card', modules }];

/** Asserts the value is refused with exactly this `path: rule`. */
export function expectInvalid(value: unknown, detail: string): void {
  let caught: unknown;
  try {
    validateCard(value, NOW);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(CardInvalidError);
  const error = caught as CardInvalidError;
  expect(error.params.detail).toBe(detail);
  expect(`${error.data?.path}: ${error.data?.rule}`).toBe(detail);
}
