import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createHttpHandler } from '../../src/api/app.js';
import { type Config, loadConfig } from '../../src/config/index.js';
import { listen, type RunningServer } from '../../src/http/server.js';
import { createLogger } from '../../src/log/logger.js';
import { openResources, type Resources } from '../../src/resources.js';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export interface ApiResponse<T = unknown> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: { code: number; message: string; data: T };
  readonly text: string;
}

export interface RequestOptions {
  /** Bot token for `Authorization: Bot ...`. */
  readonly bot?: string;
  /** true: the admin token; a string: that bearer token. */
  readonly admin?: boolean | string;
  readonly json?: unknown;
  /** Raw body text (sent as given, with `headers` deciding the content type). */
  readonly raw?: string | Uint8Array;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface TestApp {
  readonly base: string;
  readonly res: Resources;
  readonly config: Config;
  /** Every log line the app wrote, parsed. */
  readonly logs: Array<Record<string, unknown>>;
  readonly logText: () => string;
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

/** A unique, readable suffix for one test file's database and Redis prefix. */
export const uniqueName = (name: string): string =>
  `${name.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;

/**
 * The app on the real Redis and the real store, with a fresh database and Redis key prefix,
 * served on an ephemeral loopback port. close() drops the database and the prefix's keys.
 */
export async function startTestApp(
  name: string,
  env: Readonly<Record<string, string>> = {},
  options: {
    /** A second web process of `sharedWith`: same database and Redis prefix; its close() drops neither. */
    readonly sharedWith?: TestApp;
    /** Settings that win over the environment's (a Redis mode's REDIS_URL, say; `env` only fills gaps). */
    readonly override?: Readonly<Record<string, string>>;
  } = {},
): Promise<TestApp> {
  const shared = options.sharedWith;
  const unique = shared ? shared.config.redisPrefix.replace(/^herald-test-/, '') : uniqueName(name);
  const config = loadConfig(
    { ...process.env, ...options.override },
    {
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      LOG_LEVEL: 'debug',
      REDIS_PREFIX: `herald-test-${unique}`,
      ...env,
    },
  );
  const lines: string[] = [];
  const log = createLogger('debug', (line) => lines.push(line));
  const res = await openResources(config, log, { dbName: `herald_test_${unique}` });
  let server: RunningServer | undefined;
  try {
    server = await listen(createHttpHandler(res), 0, '127.0.0.1');
  } catch (err) {
    await res.close();
    throw err;
  }
  const base = `http://127.0.0.1:${server.port}`;
  const running = server;
  return {
    base,
    res,
    config,
    get logs() {
      return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    logText: () => lines.join('\n'),
    async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
      const headers: Record<string, string> = { ...options.headers };
      if (options.bot !== undefined) headers.Authorization = `Bot ${options.bot}`;
      if (options.admin !== undefined && options.admin !== false) {
        headers.Authorization = `Bearer ${options.admin === true ? TEST_ADMIN_TOKEN : options.admin}`;
      }
      let body: string | Uint8Array | undefined = options.raw;
      if (options.json !== undefined) {
        body = JSON.stringify(options.json);
        headers['Content-Type'] ??= 'application/json';
      }
      const r = await fetch(base + path, { method, headers, body });
      const text = await r.text();
      let parsed: ApiResponse<T>['body'];
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new Error(`non-JSON response ${r.status}: ${text.slice(0, 200)}`);
      }
      return { status: r.status, headers: r.headers, body: parsed, text };
    },
    async close() {
      await running.close(0);
      if (!shared) {
        await res.store.dropDatabase().catch(() => {});
        await deleteRedisPrefix(res, config.redisPrefix).catch(() => {});
      }
      await res.close();
    },
  };
}

export async function deleteRedisPrefix(res: Resources, prefix: string): Promise<void> {
  // On a cluster each master holds its own keys, and one DEL names keys of one slot.
  const cluster = res.redis as unknown as { isCluster?: boolean; nodes?: (role: 'master') => Redis[] };
  const nodes = cluster.isCluster && cluster.nodes ? cluster.nodes('master') : [res.redis];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length === 0) continue;
      if (cluster.isCluster) await Promise.all(keys.map((k) => node.del(k)));
      else await node.del(...keys);
    } while (cursor !== '0');
  }
}

/**
 * A fixture call asked again after a 503 (up to 5 tries): on a loaded machine the store can take
 * longer than a test app's DB_TIMEOUT_MS, and a fixture is not what the test is about.
 */
export async function setUpRequest<R extends { status: number }>(call: () => Promise<R>): Promise<R> {
  for (let tries = 1; ; tries++) {
    const r = await call();
    if (r.status !== 503 || tries >= 5) return r;
    await new Promise((resolve) => setTimeout(resolve, 50 * tries));
  }
}

/** Creates a bot through the admin API; returns its record and token. */
export async function createTestBot(
  app: TestApp,
  body: Record<string, unknown> = {},
): Promise<{ id: string; token: string; bot: Record<string, unknown> }> {
  const r = await setUpRequest(() =>
    app.request<{ bot: Record<string, unknown> & { id: string }; token: string }>(
      'POST',
      '/admin/api/bot/create',
      {
        admin: true,
        json: { name: 'test bot', ...body },
      },
    ),
  );
  if (r.status !== 200) throw new Error(`bot create failed: ${r.text}`);
  return { id: r.body.data.bot.id, token: r.body.data.token, bot: r.body.data.bot };
}
