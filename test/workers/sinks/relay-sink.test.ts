import { createServer, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryError } from '../../../src/errors/index.js';
import { encodeUtf8 } from '../../../src/text/utf8.js';
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
    // Joined as bytes: a character split over two chunks must not become two U+FFFD.
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      last = { path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') };
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

describe("the body around the render thread's wire bytes (OutgoingMessage.content_json)", () => {
  // Long enough for encodeUtf8's ICU path; quotes, backslashes, line separators, CJK, an emoji
  // and a lone surrogate, which JSON.stringify writes as an escape.
  const content = `${'{"card":"卡片 \\ \u2028 \ud83d\ude00 \t'.repeat(200)}\ud800"}`;
  const plain: OutgoingMessage = { ...message, type: 10, content, quote: 'q-1', temp_target_id: 'u-9' };
  const wired: OutgoingMessage = {
    ...plain,
    content_json: new Uint8Array(encodeUtf8(JSON.stringify(content))),
  };
  const bodyOf = async (post: (m: OutgoingMessage) => Promise<unknown>, m: OutgoingMessage) => {
    answer(200, JSON.stringify({ code: 0, message: 'ok', data: { msg_id: 'up-2' } }));
    await post(m);
    return last.body;
  };

  it('is byte for byte the body written from the content, for a create and an edit', async () => {
    const create = (m: OutgoingMessage) => relayMessage({ url, token: 't' }, m, { timeoutMs: 2_000 });
    const edit = (m: OutgoingMessage) => relayEdit({ url, token: 't' }, 'up-1', m, { timeoutMs: 2_000 });
    const created = await bodyOf(create, plain);
    expect(created).toBe(
      JSON.stringify({
        type: 10,
        target_id: 'c',
        content,
        nonce: 'm-1',
        quote: 'q-1',
        temp_target_id: 'u-9',
      }),
    );
    expect(await bodyOf(create, wired)).toBe(created);
    const edited = await bodyOf(edit, plain);
    expect(edited).toBe(JSON.stringify({ msg_id: 'up-1', content, quote: 'q-1', temp_target_id: 'u-9' }));
    expect(await bodyOf(edit, wired)).toBe(edited);
  });

  it('sends the wire bytes, not the content, when it has them', async () => {
    const other = { ...wired, content: 'not this' };
    expect(
      JSON.parse(await bodyOf((m) => relayMessage({ url, token: 't' }, m, { timeoutMs: 2_000 }), other))
        .content,
    ).toBe(content);
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
