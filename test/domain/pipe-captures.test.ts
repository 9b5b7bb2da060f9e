import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  CAPTURE_HEADERS,
  CaptureBatch,
  captureHeaders,
  decodeCapture,
  encodeCapture,
} from '../../src/domain/pipes/captures.js';

/** The pure half of captured payloads: which headers are kept, and a capture's stored form. */
describe('captureHeaders', () => {
  it('keeps allow-listed headers only, never a credential or signature', () => {
    const kept = captureHeaders({
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/1',
      'x-github-event': 'push',
      'x-github-delivery': '72d3162e',
      authorization: 'Pipe hrp_1.secret',
      cookie: 'a=b',
      'x-hub-signature': 'sha1=x',
      'x-hub-signature-256': 'sha256=x',
      'x-gitlab-token': 'secret',
      'webhook-signature': 'v1,x',
      'sentry-hook-signature': 'x',
      'x-gitea-signature': 'x',
      'x-forwarded-for': '10.0.0.1',
      host: 'herald.example',
    });
    expect(kept).toEqual({
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/1',
      'x-github-event': 'push',
      'x-github-delivery': '72d3162e',
    });
  });

  it('joins a repeated header, and leaves absent ones out', () => {
    expect(captureHeaders({ 'x-request-id': ['a', 'b'], 'webhook-id': undefined })).toEqual({
      'x-request-id': 'a, b',
    });
  });

  it('names no credential-bearing header in the allow-list', () => {
    for (const name of CAPTURE_HEADERS) {
      expect(name).toBe(name.toLowerCase());
      expect(name).not.toMatch(/authorization|cookie|signature|token|secret/);
    }
  });
});

describe('encodeCapture / decodeCapture', () => {
  const at = Date.UTC(2025, 0, 2, 3, 4, 5, 678);
  const source = {
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-gitlab-event': 'Push Hook' },
  };

  it('round-trips a body within the limit, byte for byte', () => {
    const text = '{"msg":"修复 ✓","n":1}';
    const bytes = Buffer.from(text);
    const stored = encodeCapture(at, source, bytes, bytes.length);
    expect(stored.body).toBe(bytes);
    expect(decodeCapture('m-1', stored.meta, stored.body?.toString('utf8') ?? null)).toEqual({
      id: 'm-1',
      received_at: '2025-01-02T03:04:05.678Z',
      content_type: 'application/json; charset=utf-8',
      size: bytes.length,
      headers: source.headers,
      body: text,
      too_large: false,
    });
  });

  it('keeps no text for a body one byte over the limit, and says so', () => {
    const bytes = Buffer.alloc(11, 0x61);
    const stored = encodeCapture(at, source, bytes, 10);
    expect(stored.body).toBeNull();
    expect(stored.meta).not.toContain('aaaa');
    expect(decodeCapture('m-2', stored.meta, null)).toMatchObject({ size: 11, body: null, too_large: true });
  });

  it('keeps an empty body as empty text; no content type reads as null', () => {
    const stored = encodeCapture(at, { headers: {} }, Buffer.alloc(0), 0);
    expect(decodeCapture('m-3', stored.meta, '')).toMatchObject({
      content_type: null,
      size: 0,
      headers: {},
      body: '',
      too_large: false,
    });
  });
});

describe('CaptureBatch', () => {
  const capture = (n: number) => ({
    msgId: `m-${n}`,
    acceptedAt: n,
    source: { headers: {} },
    body: Buffer.from(`{"n":${n}}`),
  });

  it("writes a turn's captures once per pipe, oldest first, only the newest that the list keeps", async () => {
    const writes: Array<[string, string[]]> = [];
    const batch = new CaptureBatch(3, (pipeId, captures) =>
      writes.push([pipeId, captures.map((c) => c.msgId)]),
    );
    for (let n = 1; n <= 5; n++) batch.add('p1', capture(n));
    batch.add('p2', capture(6));
    expect(writes).toEqual([]); // nothing before the turn's end
    await nextTurn();
    expect(writes).toEqual([
      ['p1', ['m-3', 'm-4', 'm-5']],
      ['p2', ['m-6']],
    ]);
    batch.add('p1', capture(7));
    await nextTurn();
    expect(writes.at(-1)).toEqual(['p1', ['m-7']]);
    expect(writes).toHaveLength(3);
  });
});
