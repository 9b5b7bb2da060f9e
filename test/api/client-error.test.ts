import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../src/api/app.js';
import { rawRequest } from '../helpers/raw-http.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/*
 * Requests Node's HTTP parser refuses never reach a route: src/api/client-error.ts answers them
 * from the server's 'clientError' event, in the envelope, instead of Node's empty 400/431.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp('client_error');
});
afterAll(() => app?.close());

const GET = 'GET /api/v3/intimacy/index?access_token=secret-in-query HTTP/1.1\r\nHost: herald\r\n';

describe('requests the parser refuses', () => {
  it.each([
    ['a NUL inside a header', `${GET}X-Note: a\0b\r\n\r\n`, '请求头含有无效的字符或空白'],
    ['a CR inside a header', `${GET}X-Note: a\rb\r\n\r\n`, 'CR 后缺少 LF（换行必须是 CRLF）'],
    ['a bare-LF line', `${GET}X-Note: a\nX-Other: b\r\n\r\n`, 'LF 前缺少 CR（换行必须是 CRLF）'],
    [
      'a bare-LF request line',
      'GET /healthz HTTP/1.1\nHost: herald\n\n',
      '请求行的 HTTP 版本或其后的换行无效',
    ],
    ['obs-fold', `${GET}X-Note: a\r\n  folded\r\n\r\n`, '请求头含有无效的字符或空白'],
    // HPE_STRICT ("Expected LF after headers"): not left in English
    ['a CR without LF ending the headers', `${GET}\rX`, '换行或分块不符合 HTTP/1.1 的格式'],
    ['a bad method', 'G@T / HTTP/1.1\r\n\r\n', '请求方法无效'],
    [
      'Content-Length twice',
      'POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
      'Content-Length 重复或与 Transfer-Encoding 冲突',
    ],
  ])('%s: 400 in the envelope, in the default language, closed', async (_, request, reason) => {
    const r = await rawRequest(app.base, request);
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.headers.connection).toBe('close');
    expect(JSON.parse(r.text)).toEqual({ code: 40005, message: `请求不是合法的 HTTP：${reason}`, data: {} });
  });

  it('too many headers: 431 in the envelope', async () => {
    const many = Array.from({ length: 1000 }, (_, i) => `X-Header-${i}: value\r\n`).join('');
    const r = await rawRequest(app.base, `${GET}${many}\r\n`);
    expect(r.status).toBe(431);
    expect(r.headers.connection).toBe('close');
    expect(JSON.parse(r.text)).toEqual({ code: 43100, message: '请求头过大，最多 16 KiB', data: {} });
  });

  it('answers in the language asked for, echoes a sane X-Request-Id, logs a line without target or headers', async () => {
    const r = await rawRequest(
      app.base,
      `${GET}Accept-Language: en-US\r\nX-Request-Id: malformed-1\r\nX-Note: a\0b\r\n\r\n`,
    );
    expect(r.status).toBe(400);
    expect(r.headers['x-request-id']).toBe('malformed-1');
    expect(JSON.parse(r.text)).toEqual({
      code: 40005,
      message: 'The request is not valid HTTP: Invalid header value char',
      data: {},
    });
    await expect
      .poll(() => app.logs.find((l) => l.request_id === 'malformed-1'))
      .toMatchObject({ msg: 'request', method: 'GET', route: null, path: '', status: 400 });
    expect(app.logText()).not.toContain('secret-in-query');
    expect(app.logText()).not.toContain('/api/v3/intimacy');
    // The server serves on.
    const ok = await app.request('GET', '/healthz');
    expect(ok.status).toBe(200);
  });

  it('a request that does not arrive in time: 408 in the envelope, closed', async () => {
    // Node's request timeout (300 s by default) is shortened on a server of its own; the answer
    // comes from the same handler's client-error path.
    const handler = createHttpHandler(app.res);
    const server = createServer(
      { requestTimeout: 300, headersTimeout: 300, connectionsCheckingInterval: 50 },
      handler,
    );
    server.on('clientError', handler.onClientError);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      // Headers never finished: the parser waits until the timeout (so no language is known).
      const r = await rawRequest(
        base,
        'POST /api/v3/intimacy/update HTTP/1.1\r\nHost: herald\r\nAccept-Language: en-US\r\n',
      );
      expect(r.status).toBe(408);
      expect(r.headers.connection).toBe('close');
      expect(JSON.parse(r.text)).toEqual({
        code: 40800,
        message: '请求未能及时完整送达',
        data: {},
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
