import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_INPUT_DEFLATE_MIN_BYTES, MAX_BODY_LIMIT_BYTES } from '../../src/config/defaults.js';
import { bodyInput, inputText } from '../../src/queue/job-input.js';

/** A template pipe's body as its job carries it: bytes in base64, deflated when that pays. */
const push = readFileSync(new URL('../fixtures/gitlab/push-large.json', import.meta.url));

describe('bodyInput / inputText', () => {
  it('deflates a large JSON body to a fraction of its base64, and gives back exactly its text', () => {
    const written = bodyInput(push);
    expect(written.input_encoding).toBe('deflate-base64');
    expect(written.input).toMatch(/^[A-Za-z0-9+/]+=*$/);
    // 50 KB of GitLab push: about 9 KB in the job instead of about 70 KB
    expect(written.input.length).toBeLessThan(push.toString('base64').length / 4);
    expect(inputText(written.input, written.input_encoding)).toBe(push.toString('utf8'));
  });

  it('keeps a body under DEFAULT_INPUT_DEFLATE_MIN_BYTES as plain base64', () => {
    const small = Buffer.from(JSON.stringify({ title: '构建成功', pad: 'x'.repeat(900) }));
    expect(small.length).toBeLessThan(DEFAULT_INPUT_DEFLATE_MIN_BYTES);
    const written = bodyInput(small);
    expect(written).toEqual({ input: small.toString('base64'), input_encoding: 'base64' });
    expect(inputText(written.input, written.input_encoding)).toBe(small.toString('utf8'));
  });

  it('deflates from DEFAULT_INPUT_DEFLATE_MIN_BYTES on', () => {
    const body = Buffer.from(JSON.stringify({ pad: 'ab'.repeat(DEFAULT_INPUT_DEFLATE_MIN_BYTES) }));
    expect(bodyInput(body.subarray(0, DEFAULT_INPUT_DEFLATE_MIN_BYTES)).input_encoding).toBe(
      'deflate-base64',
    );
    expect(bodyInput(body.subarray(0, DEFAULT_INPUT_DEFLATE_MIN_BYTES - 1)).input_encoding).toBe('base64');
  });

  it('deflates from the given size on: above every body, never (the rolling-upgrade setting)', () => {
    expect(bodyInput(push, push.length + 1).input_encoding).toBe('base64');
    expect(bodyInput(push, push.length).input_encoding).toBe('deflate-base64');
  });

  it('keeps bytes that do not shrink as plain base64', () => {
    const random = randomBytes(4096);
    expect(bodyInput(random)).toEqual({ input: random.toString('base64'), input_encoding: 'base64' });
  });

  it('turns invalid UTF-8 into U+FFFD after inflating, as when the body was first read', () => {
    const bytes = Buffer.concat([
      Buffer.from(`{"a":"${'z'.repeat(2000)}`),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const written = bodyInput(bytes);
    expect(written.input_encoding).toBe('deflate-base64');
    const text = inputText(written.input, written.input_encoding);
    expect(text).toBe(bytes.toString('utf8'));
    expect(text.endsWith('\ufffd\ufffd"}')).toBe(true);
  });

  it('gives back the text whether it inflates to one output chunk or several', () => {
    // The inflate's output chunk is sized from the deflated length (about 8x): bodies that
    // shrink less fit one chunk, bodies that shrink far more (repetitive text) take several.
    const cases = [
      Buffer.from(JSON.stringify({ commits: [1, 2, 3].map((i) => ({ id: i, message: `提交 ${i}` })) })),
      push,
      Buffer.concat([push, push, push, push]),
      Buffer.from(JSON.stringify({ log: '构建 ok\n'.repeat(200_000) })),
    ];
    for (const bytes of cases) {
      const written = bodyInput(bytes, 0);
      expect(written.input_encoding).toBe('deflate-base64');
      expect(inputText(written.input, written.input_encoding)).toBe(bytes.toString('utf8'));
    }
    // the last one shrinks far past 8x: several chunks
    const last = cases.at(-1) as Buffer;
    expect(last.length / Buffer.from(bodyInput(last, 0).input, 'base64').length).toBeGreaterThan(100);
  });

  it('reads a job without an encoding as text', () => {
    expect(inputText('{"content":"hi"}', undefined)).toBe('{"content":"hi"}');
  });

  it('throws on a deflated input that is corrupt, or that would inflate past the largest body', () => {
    expect(() => inputText(Buffer.from('not deflate at all').toString('base64'), 'deflate-base64')).toThrow();
    const bomb = deflateRawSync(Buffer.alloc(MAX_BODY_LIMIT_BYTES + 1), { level: 1 });
    expect(bomb.length).toBeLessThan(MAX_BODY_LIMIT_BYTES / 100); // a small job that unpacks huge
    expect(() => inputText(bomb.toString('base64'), 'deflate-base64')).toThrow(/buffer|length/i);
    const largest = deflateRawSync(Buffer.alloc(MAX_BODY_LIMIT_BYTES), { level: 1 });
    expect(inputText(largest.toString('base64'), 'deflate-base64')).toHaveLength(MAX_BODY_LIMIT_BYTES);
  });
});
