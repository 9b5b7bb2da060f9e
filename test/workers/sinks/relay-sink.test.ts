import { createServer, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryError } from '../../../src/errors/index.js';
import { relayEdit, relayMessage } from '../../../src/workers/sinks/relay-sink.js';
import type { OutgoingMessage } from '../../../src/workers/sinks/types.js';

/**
 * The relay sink against a local HTTP server: how each kind of answer is judged. (The worker's
 * use of it, retries and waits included, is in delivery.test.ts and failures.test.ts.)
 */
let server: Server;
let url = '';
/** What the server answers next. */
let reply: (res: ServerResponse) => void = (res) => res.end();
/** The last request's path and body. */
let last: { path: string; body: string } = { path: '', body: '' };

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString();
    });
    req.on('end', () => {
      last = { path: req.url ?? '', body };
      reply(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const message: OutgoingMessage = {
  msg_id: 'm-1',
  bot_id: 'b',
  author_id: 'u',
  channel_id: 'c',
  guild_id: 'g',
  type: 9,
  content: 'hi',
  quote: null,
  temp_target_id: null,
  nonce: '',
  create_at: 0,
  not_permissions_mention: ['here'],
};
const send = (target = url) => relayMessage({ url: target, token: 't' }, message, { timeoutMs: 2_000 });
const answer = (status: number, body: string, headers: Record<string, string> = {}) => {
  reply = (res) => {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(body);
  };
};
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('relay sink', () => {
  it('takes a 2xx whose body is not an envelope (null, a list) as sent, with no upstream id', async () => {
    for (const body of ['null', '[1]', '7']) {
      answer(200, body);
      expect(await send()).toEqual({ kind: 'sent', upstream_msg_id: null });
    }
    answer(200, '{"code":0,"message":"","data":null}');
    expect(await send()).toEqual({ kind: 'sent', upstream_msg_id: null });
  });

  it("waits as a 429's headers say, however long: X-Rate-Limit-Reset, then Retry-After (seconds or a date)", async () => {
    const waitOf = async (headers: Record<string, string>, body = 'null') => {
      answer(429, body, headers);
      const result = await send();
      if (result.kind !== 'rate_limited') throw new Error(`expected rate_limited, got ${result.kind}`);
      return result.waitMs;
    };
    expect(await waitOf({ 'X-Rate-Limit-Reset': '120' })).toBe(120_000);
    expect(await waitOf({ 'X-Rate-Limit-Reset': '0.25', 'Retry-After': '9' })).toBe(250);
    expect(await waitOf({ 'Retry-After': '3' }, '{"code":42900}')).toBe(3_000);
    const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString();
    const dated = await waitOf({ 'Retry-After': inTwoMinutes });
    expect(dated).toBeGreaterThan(115_000);
    expect(dated).toBeLessThanOrEqual(120_000);
    expect(await waitOf({})).toBe(1_000);
  });

  it('retries a refused connection as UPSTREAM_UNREACHABLE', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const a = closed.address();
    const port = typeof a === 'object' && a ? a.port : 0;
    await new Promise<void>((r) => closed.close(() => r()));
    const err = await failure(send(`http://127.0.0.1:${port}`));
    expect(err).toBeInstanceOf(DeliveryError);
    expect((err as DeliveryError).reason).toBe('UPSTREAM_UNREACHABLE');
    // The code, not the system error's message with the relay's address in it.
    expect((err as DeliveryError).message).toBe(
      'The relay target is unavailable: connection failed (ECONNREFUSED)',
    );
    expect((err as DeliveryError).localizedMessage('zh-CN')).toBe('转发目标不可用：连接失败（ECONNREFUSED）');
    expect(((err as DeliveryError).cause as Error).message).toContain(`127.0.0.1:${port}`);
  });
});

describe('relay edit (a grouped pipe updating its message in place)', () => {
  const edit = () =>
    relayEdit({ url, token: 't' }, 'up-1', { ...message, quote: 'q-1' }, { timeoutMs: 2_000 });

  it("posts message/update with the upstream id and the new content; a 2xx is the edited message's id", async () => {
    answer(200, JSON.stringify({ code: 0, message: 'ok', data: [] }));
    expect(await edit()).toEqual({ kind: 'sent', upstream_msg_id: 'up-1' });
    expect(last.path).toBe('/api/v3/message/update');
    expect(JSON.parse(last.body)).toEqual({ msg_id: 'up-1', content: 'hi', quote: 'q-1' });
  });

  it('judges the answer as a create: a refusal is UPSTREAM_REJECTED, a 429 a wait, a 5xx retryable', async () => {
    answer(200, JSON.stringify({ code: 40000, message: '消息不存在', data: {} }));
    expect(await failure(edit())).toMatchObject({ reason: 'UPSTREAM_REJECTED' });
    answer(429, '{}', { 'X-Rate-Limit-Reset': '2' });
    expect(await edit()).toEqual({ kind: 'rate_limited', waitMs: 2_000 });
    answer(502, 'bad gateway');
    const down = await failure(edit());
    expect(down).toBeInstanceOf(DeliveryError);
    expect((down as DeliveryError).retryable).toBe(true);
  });
});
