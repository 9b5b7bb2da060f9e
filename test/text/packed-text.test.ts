import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PACK_MIN_CHARS, packText, unpackText } from '../../src/text/packed-text.js';

/** The packed form a delivery record keeps long messages in. */
describe('packed text', () => {
  it('packs long text smaller, as plain ASCII, and gives it back exactly', () => {
    const card = JSON.stringify(
      Array.from({ length: 40 }, (_, i) => ({
        type: 'section',
        text: { content: `提交 ${i} "quoted" \\ 🚀` },
      })),
    );
    const packed = packText(card);
    expect(packed).not.toBeNull();
    expect(packed?.length).toBeLessThan(card.length / 3);
    expect(packed).toMatch(/^[A-Za-z0-9+/=]+$/);
    expect(unpackText(packed as string)).toBe(card);
  });

  it('leaves short text, and text that would not shrink, as it is', () => {
    expect(packText('x'.repeat(PACK_MIN_CHARS - 1))).toBeNull();
    expect(packText('x'.repeat(PACK_MIN_CHARS))).not.toBeNull();
    expect(packText(randomBytes(3000).toString('base64'))).toBeNull();
  });

  it('refuses what it did not pack', () => {
    expect(() => unpackText('bm90IGJyb3RsaQ==')).toThrow();
  });
});
