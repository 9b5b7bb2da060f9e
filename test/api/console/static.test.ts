import { readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { basename, join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompress } from '../../../console/precompress.js';
import { call, FAKE_ASSET, FAKE_INDEX, useConsoleDir } from '../../helpers/console.js';
import { rawRequest } from '../../helpers/raw-http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/** The built console at /console/ (src/api/console/static.ts). */
const dir = useConsoleDir();
let app: TestApp;

/** An asset big enough to be worth compressing, as the build writes it (console/precompress.ts). */
const BIG_ASSET = `${Array.from({ length: 400 }, (_, i) => `export const line${i} = 'text ${i}';`).join('\n')}\n`;
let written: string[] = [];

beforeAll(async () => {
  writeFileSync(join(dir, 'assets', 'big-7a8b9c.js'), BIG_ASSET);
  writeFileSync(join(dir, 'assets', 'logo-0a1b2c.png'), BIG_ASSET);
  written = await precompress(dir, [
    'index.html',
    'assets/app-1a2b3c.js',
    'assets/big-7a8b9c.js',
    'assets/logo-0a1b2c.png',
  ]);
  app = await startTestApp('console_static', { CONSOLE_DIR: dir });
});
afterAll(() => app?.close());

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; connect-src 'self'; " +
  "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

describe('static serving', () => {
  it('/console answers 308 to /console/, keeping the query', async () => {
    const r = await call(app, 'GET', '/console?lang=en');
    expect([r.status, r.headers.get('location')]).toEqual([308, '/console/?lang=en']);
  });

  it.each(['/console/', '/console/deliveries', '/console/bots/1234/edit', '/console/favicon.ico'])(
    'GET %s serves index.html, not cached, with the security headers',
    async (path) => {
      const r = await call(app, 'GET', path);
      expect(r.status).toBe(200);
      expect(r.text).toBe(FAKE_INDEX);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(r.headers.get('cache-control')).toBe('no-cache');
      expect(r.headers.get('content-security-policy')).toBe(CSP);
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      expect(r.headers.get('x-frame-options')).toBe('DENY');
    },
  );

  it('serves an asset with a year-long immutable cache and its content type', async () => {
    const js = await call(app, 'GET', '/console/assets/app-1a2b3c.js');
    expect([js.status, js.text]).toEqual([200, FAKE_ASSET]);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    expect(js.headers.get('content-security-policy')).toBe(CSP);
    const css = await call(app, 'GET', '/console/assets/app-4d5e6f.css');
    expect([css.status, css.headers.get('content-type')]).toEqual([200, 'text/css; charset=utf-8']);
    const head = await call(app, 'HEAD', '/console/assets/app-1a2b3c.js');
    expect([head.status, head.headers.get('content-length'), head.text]).toEqual([
      200,
      String(FAKE_ASSET.length),
      '',
    ]);
  });

  it('a missing asset is a 404 envelope, not index.html', async () => {
    for (const path of ['/console/assets/nope-000.js', '/console/assets/', '/console/assets/sub']) {
      const r = await call(app, 'GET', path);
      expect([path, r.status, r.body?.code]).toEqual([path, 404, 40400]);
      expect(r.headers.get('content-security-policy')).toBe(CSP);
      expect(r.headers.get('cache-control')).toBeNull();
    }
  });

  it('refuses to leave the assets folder, however the path is spelt', async () => {
    const secret = `${basename(dir)}-secret.txt`;
    const tries = [
      `/console/assets/../../${secret}`,
      `/console/assets/..%2f..%2f${secret}`,
      `/console/assets/%2e%2e/%2e%2e/${secret}`,
      `/console/assets/..%5c..%5c${secret}`,
      '/console/assets/../index.html',
      '/console/assets/%2e%2e%2findex.html',
      '/console/assets/%00app-1a2b3c.js',
      '/console/assets/%E0%A4%A',
      `/console/assets/${encodeURIComponent(`${dir}/../${secret}`)}`,
    ];
    for (const path of tries) {
      // Raw, so that no client normalises the dot segments away first.
      const r = await rawRequest(
        app.base,
        `GET ${path} HTTP/1.1\r\nHost: herald\r\nConnection: close\r\n\r\n`,
      );
      expect([path, r.status]).toEqual([path, 404]);
      expect(r.text).not.toContain('not for the web');
      expect(r.headers['content-security-policy']).toBe(CSP);
    }
  });

  it('other methods on the console pages are 405 with Allow', async () => {
    const r = await call(app, 'POST', '/console/bots', { json: {} });
    expect([r.status, r.body?.code, r.headers.get('allow')]).toEqual([405, 40500, 'GET, HEAD']);
    expect(r.headers.get('content-security-policy')).toBe(CSP);
  });

  it('an unknown /console/api path is a 404 envelope with the security headers', async () => {
    const r = await call(app, 'GET', '/console/api/nothing');
    expect([r.status, r.body?.code]).toEqual([404, 40400]);
    expect(r.headers.get('content-security-policy')).toBe(CSP);
  });

  it('paths outside /console get none of the console headers', async () => {
    const r = await call(app, 'GET', '/consolefoo');
    expect(r.status).toBe(404);
    expect(r.headers.get('content-security-policy')).toBeNull();
  });
});

/** A GET with exactly these headers, answered as raw bytes (no client decompresses them). */
function rawGet(
  path: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = get(app.base + path, { headers, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
  });
}

describe('pre-compressed assets', () => {
  const path = '/console/assets/big-7a8b9c.js';
  const file = join(dir, 'assets', 'big-7a8b9c.js');

  it('the build writes .br and .gz only for compressible files they make smaller', () => {
    expect(written.sort()).toEqual(['assets/big-7a8b9c.js.br', 'assets/big-7a8b9c.js.gz']);
    expect(brotliDecompressSync(readFileSync(`${file}.br`)).toString()).toBe(BIG_ASSET);
    expect(gunzipSync(readFileSync(`${file}.gz`)).toString()).toBe(BIG_ASSET);
  });

  it.each([
    ['gzip, deflate, br, zstd', 'br'],
    ['br', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['GZIP;q=0.5', 'gzip'],
    ['*', 'br'],
    ['br;q=0, *', 'gzip'],
  ])('Accept-Encoding %j gets the %s variant, with Vary', async (accept, encoding) => {
    const r = await rawGet(path, { 'Accept-Encoding': accept });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe(encoding);
    expect(r.headers.vary).toBe('Accept-Encoding');
    expect(r.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(r.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(r.headers['content-security-policy']).toBe(CSP);
    const suffix = encoding === 'br' ? '.br' : '.gz';
    expect(r.headers['content-length']).toBe(String(readFileSync(file + suffix).length));
    const text = (encoding === 'br' ? brotliDecompressSync(r.body) : gunzipSync(r.body)).toString();
    expect(text).toBe(BIG_ASSET);
  });

  it.each([[undefined], ['identity'], ['deflate'], ['br;q=0, gzip;q=0'], ['*;q=0']])(
    'Accept-Encoding %j gets the file as it is, with Vary',
    async (accept) => {
      const r = await rawGet(path, accept === undefined ? {} : { 'Accept-Encoding': accept });
      expect(r.status).toBe(200);
      expect(r.headers['content-encoding']).toBeUndefined();
      expect(r.headers.vary).toBe('Accept-Encoding');
      expect(r.body.toString()).toBe(BIG_ASSET);
    },
  );

  it('HEAD says the length of the variant it would send', async () => {
    const r = await rawGet(path, { 'Accept-Encoding': 'br' }, 'HEAD');
    expect([r.status, r.headers['content-encoding'], r.headers['content-length'], r.body.length]).toEqual([
      200,
      'br',
      String(readFileSync(`${file}.br`).length),
      0,
    ]);
  });

  it('an asset without variants is sent as it is, without Vary', async () => {
    const r = await rawGet('/console/assets/app-1a2b3c.js', { 'Accept-Encoding': 'gzip, br' });
    expect([r.status, r.headers['content-encoding'], r.headers.vary]).toEqual([200, undefined, undefined]);
    expect(r.body.toString()).toBe(FAKE_ASSET);
  });

  it('index.html is never compressed', async () => {
    const r = await rawGet('/console/', { 'Accept-Encoding': 'gzip, br' });
    expect([r.status, r.headers['content-encoding'], r.body.toString()]).toEqual([
      200,
      undefined,
      FAKE_INDEX,
    ]);
  });
});

describe('console not built', () => {
  let bare: TestApp;
  beforeAll(async () => {
    bare = await startTestApp('console_unbuilt', { CONSOLE_DIR: `${dir}-not-there` });
  });
  afterAll(() => bare?.close());

  it('/console/ answers 503 saying to run npm run build', async () => {
    const r = await call(bare, 'GET', '/console/');
    expect([r.status, r.body?.code]).toEqual([503, 50301]);
    expect(r.body?.message).toContain('npm run build');
    expect(r.headers.get('content-security-policy')).toBe(CSP);
    const zh = await call(bare, 'GET', '/console/', { headers: { 'Accept-Language': 'zh-CN' } });
    expect(zh.body?.message).toContain('控制台尚未构建');
  });
});

describe('CONSOLE=off', () => {
  let off: TestApp;
  beforeAll(async () => {
    off = await startTestApp('console_off', { CONSOLE: 'off', CONSOLE_DIR: dir });
  });
  afterAll(() => off?.close());

  it.each([
    ['GET', '/console'],
    ['GET', '/console/'],
    ['GET', '/console/assets/app-1a2b3c.js'],
    ['GET', '/console/api/session'],
    ['POST', '/console/api/session'],
    ['GET', '/console/queues/'],
    ['GET', '/console/queues/api/queues'],
  ])('%s %s answers the 404 envelope', async (method, path) => {
    const r = await call(off, method, path, method === 'POST' ? { json: { token: 'x' } } : {});
    expect([r.status, r.body?.code]).toEqual([404, 40400]);
    expect(r.text).not.toContain(FAKE_ASSET);
  });
});
