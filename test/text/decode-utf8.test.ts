import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeUtf8 } from '../../src/text/decode-utf8.js';

/** decodeUtf8 must give exactly what Buffer#toString('utf8') gives, for any bytes. */
const same = (bytes: Buffer) => expect(decodeUtf8(bytes)).toBe(bytes.toString('utf8'));

describe('decodeUtf8', () => {
  it('decodes like toString: ASCII, Chinese, emoji, Latin-1 letters, a BOM, NUL, short and long', () => {
    for (const text of [
      '',
      'plain ascii',
      'a'.repeat(5_000),
      '推送成功 '.repeat(200),
      `${'x'.repeat(300)}🎉👩‍💻${'y'.repeat(300)}`,
      'café naïve '.repeat(50),
      `\uFEFF${'{"bom": true} '.repeat(40)}`,
      `nul\u0000inside ${'z'.repeat(400)}`,
    ]) {
      same(Buffer.from(text, 'utf8'));
    }
    same(readFileSync(new URL('../fixtures/gitlab/push-large.json', import.meta.url)));
  });

  it('turns invalid bytes into U+FFFD exactly as toString does', () => {
    const long = Buffer.from('中'.repeat(200));
    for (const bad of [
      [0xe4, 0xb8], // cut short
      [0xc0, 0xaf], // overlong
      [0xed, 0xa0, 0x80], // a UTF-16 surrogate written as UTF-8
      [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
      [0xff],
      [0x80, 0x80],
    ]) {
      same(Buffer.concat([long, Buffer.from(bad), long]));
      same(Buffer.concat([long, Buffer.from(bad)]));
    }
  });

  it('agrees with toString on random mixes of valid text and random bytes', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pieces = ['a', 'é', '中', '🎉', '"', '\\', '\n'];
    for (let round = 0; round < 500; round++) {
      const parts: Buffer[] = [];
      const n = Math.floor(random() * 400);
      for (let i = 0; i < n; i++) {
        parts.push(
          random() < 0.02
            ? Buffer.from([Math.floor(random() * 256)])
            : Buffer.from(pieces[Math.floor(random() * pieces.length)] as string),
        );
      }
      same(Buffer.concat(parts));
    }
  });
});
