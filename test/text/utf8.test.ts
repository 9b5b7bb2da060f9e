import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeUtf8, decodeValidUtf8, encodeUtf8, firstInvalidUtf8 } from '../../src/text/utf8.js';

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

describe('decodeValidUtf8 and firstInvalidUtf8', () => {
  it('decode valid UTF-8 as toString does; undefined, and the first bad byte, for anything else', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pieces = ['a', 'é', '中', '🎉', '\uFFFD'];
    let invalid = 0;
    for (let round = 0; round < 500; round++) {
      const parts: Buffer[] = [];
      const n = Math.floor(random() * 400);
      for (let i = 0; i < n; i++) {
        parts.push(
          random() < 0.005
            ? Buffer.from([Math.floor(random() * 256)])
            : Buffer.from(pieces[Math.floor(random() * pieces.length)] as string),
        );
      }
      const bytes = Buffer.concat(parts);
      const at = firstInvalidUtf8(bytes);
      if (isUtf8(bytes)) {
        expect(decodeValidUtf8(bytes)).toBe(bytes.toString('utf8'));
        expect(at).toBe(-1);
        continue;
      }
      invalid++;
      expect(decodeValidUtf8(bytes)).toBeUndefined();
      // Everything before it is valid; the sequence starting there is not, however it goes on.
      expect(isUtf8(bytes.subarray(0, at))).toBe(true);
      expect(isUtf8(bytes.subarray(at, at + 4))).toBe(false);
    }
    expect(invalid).toBeGreaterThan(50);
  });
});

/** encodeUtf8 must give exactly the bytes Buffer.from(text) gives, for any string. */
const sameBytes = (text: string) => expect(encodeUtf8(text).equals(Buffer.from(text, 'utf8'))).toBe(true);

describe('encodeUtf8', () => {
  it('encodes like Buffer.from: ASCII, Chinese, emoji, Latin-1 letters, NUL, short and long', () => {
    for (const text of [
      '',
      'short',
      'a'.repeat(5_000),
      JSON.stringify({ content: JSON.stringify([{ text: '推送成功 "quoted" 🎉'.repeat(100) }]) }),
      'café naïve '.repeat(50),
      `nul\u0000inside ${'z'.repeat(400)}`,
    ]) {
      sameBytes(text);
    }
  });

  it('writes a lone surrogate as U+FFFD like Buffer.from (ICU refuses it; the fallback takes it)', () => {
    sameBytes(`${'中'.repeat(300)}\ud800${'x'.repeat(10)}`);
    sameBytes(`${'x'.repeat(300)}\udc00`);
  });

  it('agrees with Buffer.from on random strings of any UTF-16 code units', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 300; round++) {
      const units = Array.from({ length: Math.floor(random() * 600) }, () =>
        random() < 0.7 ? 32 + Math.floor(random() * 95) : Math.floor(random() * 0x10000),
      );
      sameBytes(String.fromCharCode(...units));
    }
  });
});
