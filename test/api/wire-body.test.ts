import { once } from 'node:events';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { tapWireBody } from '../../src/api/send-pipemsg/wire-body.js';

/** The bytes of a signed pipe's body as they arrived, tapped beside the body reader. */
function request(headers: Record<string, string>): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.headers = headers;
  return req;
}

/** Starts a "reader" (a 'data' listener, as the body reader attaches), taps, sends `chunks`. */
async function tapped(headers: Record<string, string>, chunks: string[], limit = 1024, read = true) {
  const req = request(headers);
  const seen: Buffer[] = [];
  if (read) req.on('data', (c: Buffer) => seen.push(c));
  const tap = tapWireBody(req, limit);
  for (const c of chunks) req.push(Buffer.from(c));
  req.push(null);
  if (read) await once(req, 'end');
  return { bytes: tap.bytes(), seen: Buffer.concat(seen).toString(), flowing: req.readableFlowing };
}

describe('tapWireBody', () => {
  it('taps nothing for a JSON body sent as it is: its bytes are the reader’s', async () => {
    const r = await tapped({ 'content-type': 'application/json' }, ['{"a":', '1}']);
    expect(r.bytes).toBeNull();
    expect(r.seen).toBe('{"a":1}');
    expect(
      (await tapped({ 'content-type': 'application/json', 'content-encoding': 'identity' }, ['{}'])).bytes,
    ).toBeNull();
  });

  it('keeps every chunk of a compressed body, or of a body of another type, beside the reader', async () => {
    const gz = await tapped({ 'content-type': 'application/json', 'content-encoding': 'gzip' }, [
      'ab',
      'cd',
      'ef',
    ]);
    expect(gz.bytes?.toString()).toBe('abcdef');
    expect(gz.seen).toBe('abcdef');
    const form = await tapped({ 'content-type': 'application/x-www-form-urlencoded' }, ['payload=%7B%7D']);
    expect(form.bytes?.toString()).toBe('payload=%7B%7D');
  });

  it('keeps nothing past the limit, and does not set an unread request flowing', async () => {
    const big = await tapped(
      { 'content-type': 'application/json', 'content-encoding': 'br' },
      ['12345', '678'],
      6,
    );
    expect(big.bytes).toBeNull();
    expect(big.seen).toBe('12345678');
    const unread = await tapped({ 'content-type': 'text/plain' }, ['x'], 1024, false);
    expect(unread.bytes).toBeNull();
    expect(unread.flowing).toBeNull();
  });
});
