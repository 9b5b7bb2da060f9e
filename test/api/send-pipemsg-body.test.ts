import { request } from 'node:http';
import { connect } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputText } from '../../src/queue/job-input.js';
import { PIPE_QUEUE, type PipeJob } from '../../src/queue/pipe-messages.js';
import { addTestMember, createTestChannel, createTestGuild } from '../helpers/directory.js';
import { createTestBot, startTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/test-app.js';

/*
 * send-pipemsg is served in front of Koa (src/api/send-pipemsg/), with the body reader the Koa
 * routes use too (src/api/read-json-body.ts): the wire-level cases, driven over raw HTTP so that
 * encodings, chunking and a client that goes away can be sent as they are.
 */
const LIMIT = 64 * 1024;
let app: TestApp;
let queue: Queue<PipeJob>;
let plainToken: string;
let templateToken: string;

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { code: number; message: string; data: Record<string, unknown> };
}

/** One POST with exactly these headers and body chunks (each written as it is). */
function post(
  path: string,
  headers: Record<string, string>,
  chunks: Array<Buffer | string>,
): Promise<RawAnswer> {
  const url = new URL(path, app.base);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }),
      );
    });
    // The server may answer (413) and close before everything is written.
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    for (const c of chunks) req.write(c);
    req.end();
  });
}

const sendPath = (token: string) => `/api/v3/message/send-pipemsg?access_token=${token}`;
const json = { 'Content-Type': 'application/json', 'Accept-Language': 'en-US' };

/** The job stored for an accepted message, with its input as text. */
async function jobOf(msgId: unknown): Promise<PipeJob> {
  const job = await queue.getJob(String(msgId));
  if (!job) throw new Error(`no job ${String(msgId)}`);
  return { ...job.data, input: inputText(job.data.input, job.data.input_encoding) };
}

beforeAll(async () => {
  app = await startTestApp('send_pipemsg_body', { BODY_LIMIT_BYTES: String(LIMIT) });
  const url = new URL(app.config.redisUrl);
  queue = new Queue<PipeJob>(PIPE_QUEUE, {
    connection: { host: url.hostname, port: Number(url.port || 6379) },
    prefix: app.config.redisPrefix,
  });
  const bot = await createTestBot(app);
  const guild = await createTestGuild(app);
  const channelId = (await createTestChannel(app, guild.id)).id;
  await addTestMember(app, guild.id, bot.bot.user_id as string);
  const tpl = await app.request<{ model: { id: string } }>('POST', '/api/v3/template/create', {
    bot: bot.token,
    json: { title: 'echo', content: '{{ data.text }}', msgtype: 1 },
  });
  const pipe = (body: Record<string, unknown>) =>
    app.request<{ access_token: string }>('POST', '/admin/api/pipe/create', {
      admin: true,
      json: { bot_id: bot.id, title: 'body', channel_id: channelId, ...body },
    });
  plainToken = (await pipe({})).body.data.access_token;
  templateToken = (await pipe({ template_id: tpl.body.data.model.id })).body.data.access_token;
});
afterAll(async () => {
  await queue?.close();
  await app?.close();
});

describe('content encodings', () => {
  it('415 naming an encoding it does not take, and those it takes; the Koa routes answer the same', async () => {
    const body = gzipSync('{"content":"x"}');
    const koa = (headers: Record<string, string>) =>
      post('/admin/api/bot/create', { ...headers, Authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, [body]);
    for (const encoding of ['zstd', 'gzip, gzip', 'compress']) {
      for (const [lang, message] of [
        [
          'en-US',
          `Content encoding "${encoding}" is not supported (Content-Encoding); supported: identity, gzip, deflate, br`,
        ],
        [
          'zh-CN',
          `不支持内容编码 "${encoding}"（Content-Encoding），支持的编码：identity、gzip、deflate、br`,
        ],
      ] as const) {
        const headers = {
          'Content-Type': 'application/json',
          'Accept-Language': lang,
          'Content-Encoding': encoding,
        };
        const fast = await post(sendPath(plainToken), headers, [body]);
        expect([encoding, fast.status, fast.body]).toEqual([
          encoding,
          415,
          { code: 41501, message, data: {} },
        ]);
        const routed = await koa(headers);
        expect([encoding, routed.status, routed.body]).toEqual([encoding, 415, fast.body]);
      }
    }
  });

  it('takes gzip, deflate and br bodies; the job input is the decoded text', async () => {
    const text = JSON.stringify({ text: '压缩 ✓', n: [1, 2, 3] });
    for (const [encoding, packed] of [
      ['gzip', gzipSync(text)],
      ['deflate', deflateSync(text)],
      ['br', brotliCompressSync(text)],
    ] as const) {
      const r = await post(sendPath(templateToken), { ...json, 'Content-Encoding': encoding }, [packed]);
      expect(r.status, encoding).toBe(200);
      expect((await jobOf(r.body.data.msg_id)).input).toBe(text);
    }
  });

  it('415 for an encoding it does not take; 400 (40003) for a corrupt compressed body', async () => {
    const other = await post(sendPath(plainToken), { ...json, 'Content-Encoding': 'compress' }, ['{}']);
    expect(other.status).toBe(415);
    expect(other.body.code).toBe(41501);
    // zlib's refusal, and brotli's two kinds: a bad stream and a cut-off one.
    const packed = brotliCompressSync(JSON.stringify({ content: 'x'.repeat(500) }));
    for (const [encoding, body] of [
      ['gzip', Buffer.from('not gzip at all')],
      ['br', Buffer.alloc(16, 0xff)],
      ['br', packed.subarray(0, 5)],
    ] as const) {
      const corrupt = await post(sendPath(plainToken), { ...json, 'Content-Encoding': encoding }, [body]);
      expect([encoding, corrupt.status, corrupt.body.code]).toEqual([encoding, 400, 40003]);
      expect(corrupt.body.message).toMatch(
        /^Request body could not be read: the content could not be decompressed/,
      );
    }
  });

  it('413 for a small compressed body that unpacks beyond the limit', async () => {
    const bomb = gzipSync(JSON.stringify({ content: 'x'.repeat(LIMIT * 4) }));
    expect(bomb.length).toBeLessThan(LIMIT / 8);
    const r = await post(sendPath(plainToken), { ...json, 'Content-Encoding': 'gzip' }, [bomb]);
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ code: 41300, message: 'Request body too large, at most 64 KiB', data: {} });
  });
});

describe('content types and text', () => {
  it('takes application/json in any case and with parameters, and +json types; 415 for others', async () => {
    for (const type of ['Application/JSON', 'application/json;charset=UTF-8', 'application/vnd.ci+json']) {
      const r = await post(sendPath(plainToken), { ...json, 'Content-Type': type }, ['{"content":"t"}']);
      expect(r.status, type).toBe(200);
    }
    for (const type of ['text/plain', 'application/jsonx', 'multipart/form-data; boundary=x']) {
      const r = await post(sendPath(plainToken), { ...json, 'Content-Type': type }, ['{"content":"t"}']);
      expect(r.status, type).toBe(415);
    }
    const none = await post(sendPath(plainToken), { 'Content-Length': '15' }, ['{"content":"t"}']);
    expect(none.status).toBe(415);
  });

  it('drops a leading byte-order mark; a body split over many chunks is joined', async () => {
    const bom = await post(sendPath(plainToken), json, ['\uFEFF{"content":"bom"}']);
    expect(bom.status).toBe(200);
    expect((await jobOf(bom.body.data.msg_id)).input).toBe('bom');
    const bomTemplate = await post(sendPath(templateToken), json, ['\uFEFF{"text":"bom"}']);
    expect((await jobOf(bomTemplate.body.data.msg_id)).input).toBe('{"text":"bom"}');
    const text = JSON.stringify({ text: '分块'.repeat(2000) });
    const bytes = Buffer.from(text);
    const pieces = Array.from({ length: 7 }, (_, i) => bytes.subarray(i * 2000, (i + 1) * 2000)).concat(
      bytes.subarray(14000),
    );
    const chunked = await post(sendPath(templateToken), json, pieces);
    expect(chunked.status).toBe(200);
    expect((await jobOf(chunked.body.data.msg_id)).input).toBe(text);
  });

  it('400 for a scalar, for bad JSON, for a forbidden key; an empty body reads as {}', async () => {
    const scalar = await post(sendPath(plainToken), json, ['"text"']);
    expect(scalar.body).toEqual({
      code: 40001,
      message: 'Request body is not valid JSON: the body must be a JSON object or array',
      data: {},
    });
    const bad = await post(sendPath(plainToken), json, ['{"content":']);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe(40001);
    const proto = await post(sendPath(plainToken), json, ['{"content":"x","a":{"__proto__":{"p":1}}}']);
    expect(proto.body.code).toBe(40002);
    const empty = await post(sendPath(plainToken), { ...json, 'Content-Length': '0' }, []);
    expect(empty.status).toBe(400);
    expect(empty.body.data).toEqual({ field: 'content' });
    // A template pipe takes it: the body reads as {}, and that is the template's input.
    const emptyTemplated = await post(sendPath(templateToken), { ...json, 'Content-Length': '0' }, []);
    expect(emptyTemplated.status).toBe(200);
    expect((await jobOf(emptyTemplated.body.data.msg_id)).input).toBe('{}');
  });
});

describe('text that is not Unicode', () => {
  it('400 naming the field for a lone surrogate escape or invalid UTF-8; nothing is queued', async () => {
    const waiting = async () => (await queue.getJobCounts('waiting')).waiting ?? 0;
    const before = await waiting();
    const lone = await post(sendPath(plainToken), json, ['{"content":"hi \\ud83d"}']);
    expect([lone.status, lone.body.code, lone.body.data]).toEqual([400, 40000, { field: 'content' }]);
    expect(lone.body.message).toMatch(/^Invalid parameter: content: must be valid Unicode text/);
    const templated = await post(sendPath(templateToken), json, ['{"text":"ok","list":["a","\\udc00"]}']);
    expect([templated.status, templated.body.data]).toEqual([400, { field: 'list[1]' }]);
    const bytes = await post(sendPath(templateToken), json, [
      Buffer.from('{"text":"'),
      Buffer.from([0xe4, 0xb8]),
      Buffer.from('"}'),
    ]);
    expect([bytes.status, bytes.body.data]).toEqual([400, { field: 'text' }]);
    expect(bytes.body.message).toBe('Invalid parameter: text: must be valid UTF-8 text (byte 9 is not)');
    // Compressed bytes are checked once decoded.
    const zipped = await post(sendPath(templateToken), { ...json, 'Content-Encoding': 'gzip' }, [
      gzipSync(Buffer.concat([Buffer.from('{"text":"'), Buffer.from([0xff]), Buffer.from('"}')])),
    ]);
    expect([zipped.status, zipped.body.data]).toEqual([400, { field: 'text' }]);
    expect(await waiting()).toBe(before);
    // A pair, escaped, is text like any other.
    const pair = await post(sendPath(templateToken), json, ['{"text":"\\ud83d\\ude00"}']);
    expect(pair.status).toBe(200);
    expect((await jobOf(pair.body.data.msg_id)).input).toBe('{"text":"\\ud83d\\ude00"}');
  });
});

describe('size and cut-short bodies', () => {
  it('413 at once for a declared length over the limit, and mid-stream for a chunked one (then closes)', async () => {
    const declared = await post(sendPath(plainToken), { ...json, 'Content-Length': String(LIMIT + 1) }, [
      'x'.repeat(LIMIT + 1),
    ]);
    expect(declared.status).toBe(413);
    const big = Buffer.alloc(16 * 1024, 'a');
    const streamed = await post(sendPath(plainToken), { ...json, 'Transfer-Encoding': 'chunked' }, [
      '{"content":"',
      ...Array.from({ length: 6 }, () => big),
      '"}',
    ]);
    expect(streamed.status).toBe(413);
    expect(streamed.headers.connection).toBe('close');
    // The X-Rate-Limit headers are there: the budget was taken before the body was read.
    expect(streamed.headers['x-rate-limit-bucket']).toBe('message/send-pipemsg');
  });

  it('a client that goes away mid-body stores nothing and is logged as a 400', async () => {
    const waiting = async () => (await queue.getJobCounts('waiting')).waiting ?? 0;
    const before = await waiting();
    const requestId = `cut-${Date.now()}`;
    await new Promise<void>((resolve) => {
      const req = request(new URL(sendPath(plainToken), app.base), {
        method: 'POST',
        headers: { ...json, 'Content-Length': '1000', 'X-Request-Id': requestId },
      });
      req.on('error', () => resolve());
      req.write('{"content":"only part of it');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 100);
    });
    await expect.poll(() => app.logs.find((l) => l.request_id === requestId)?.status).toBe(400);
    expect(await waiting()).toBe(before);
  });
});

describe('around the body', () => {
  it('echoes a sane X-Request-Id and logs the request once, with route and path but no query', async () => {
    const r = await post(sendPath(plainToken), { ...json, 'X-Request-Id': 'ci-run-42.7' }, [
      '{"content":"id"}',
    ]);
    expect(r.status).toBe(200);
    expect(r.headers['x-request-id']).toBe('ci-run-42.7');
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    const lines = app.logs.filter((l) => l.request_id === 'ci-run-42.7');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: 'request',
      method: 'POST',
      route: '/api/v3/message/send-pipemsg',
      path: '/api/v3/message/send-pipemsg',
      status: 200,
    });
    const made = await post(sendPath(plainToken), { ...json, 'X-Request-Id': 'not a valid id!' }, [
      '{"content":"id"}',
    ]);
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves the path in any case and with a trailing slash; other methods get 405 with Allow', async () => {
    const upper = await post(`/API/V3/message/Send-PipeMsg/?access_token=${plainToken}`, json, [
      '{"content":"u"}',
    ]);
    expect(upper.status).toBe(200);
    const get = await app.request('GET', sendPath(plainToken));
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(get.body.code).toBe(40500);
  });

  it('takes absolute-form targets; one that is not a URL gets a 400 envelope and the process serves on', async () => {
    /** One request written as raw bytes (Node's client would refuse these targets). */
    const raw = (method: string, target: string, body: string) =>
      new Promise<string>((resolve, reject) => {
        const { hostname, port } = new URL(app.base);
        const socket = connect(Number(port), hostname, () => {
          // Written, not ended: the server answers a half-closed connection with nothing.
          socket.write(
            `${method} ${target} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
              `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
          );
        });
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (c: string) => {
          text += c;
        });
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
    const envelopeOf = (answer: string): unknown => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    const absolute = await raw('POST', `http://localhost${sendPath(plainToken)}`, '{"content":"absolute"}');
    expect(absolute).toMatch(/^HTTP\/1\.1 200 /);
    // An absolute-form target on a Koa route too.
    const health = await raw('GET', 'http://localhost/healthz', '');
    expect(health).toMatch(/^HTTP\/1\.1 200 /);
    // Targets Node's HTTP parser passes and URL parsers refuse: a bad port, a bad IPv6 host (which
    // Koa's own url.parse threw on, a bare 500), on send-pipemsg and elsewhere.
    for (const [method, target] of [
      ['POST', 'http://a:b:c/x'],
      ['POST', 'http://[::1/x'],
      ['GET', 'http://[::1/x'],
      ['POST', `http://a:99999999${sendPath(plainToken)}`],
    ]) {
      const bad = await raw(method as string, target as string, method === 'POST' ? '{}' : '');
      expect([method, target, bad.slice(0, 12)]).toEqual([method, target, 'HTTP/1.1 400']);
      expect(envelopeOf(bad)).toMatchObject({ code: 40004, data: {} });
    }
    const logged = app.logs.filter((l) => l.msg === 'request' && l.status === 400 && l.route === null);
    expect(logged.length).toBeGreaterThanOrEqual(4);
    // No token in the log: the target is not written there.
    expect(JSON.stringify(app.logs)).not.toContain(plainToken);
    expect((await app.request('GET', '/healthz')).status).toBe(200);
  });
});
