import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import mongoose from 'mongoose';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MONGO_URL } from '../../src/config/defaults.js';
import { createLogger } from '../../src/log/logger.js';
import { checkRedisPolicy, RedisPolicyError } from '../../src/redis/redis-policy.js';
import { TEST_ADMIN_TOKEN, uniqueName } from '../helpers/test-app.js';

/** Start-up check against real, throw-away redis-server instances with chosen settings. */
const children: ChildProcess[] = [];
const clients: Redis[] = [];

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const a = s.address();
  const port = typeof a === 'object' && a ? a.port : 0;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function redisWith(args: string[]): Promise<Redis> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...args],
    {
      stdio: 'ignore',
    },
  );
  children.push(child);
  const client = new Redis({ port, host: '127.0.0.1', retryStrategy: () => 50 });
  client.on('error', () => {});
  clients.push(client);
  await expect.poll(() => client.status, { timeout: 10_000 }).toBe('ready');
  return client;
}

function capture() {
  const lines: string[] = [];
  return { log: createLogger('debug', (l) => lines.push(l)), lines };
}

afterEach(() => {
  for (const c of clients.splice(0)) c.disconnect();
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

describe('checkRedisPolicy', () => {
  it('refuses an evicting maxmemory-policy', async () => {
    const redis = await redisWith(['--maxmemory-policy', 'allkeys-lru']);
    await expect(checkRedisPolicy(redis, capture().log)).rejects.toBeInstanceOf(RedisPolicyError);
  });

  it('accepts noeviction, warning when AOF is off', async () => {
    const redis = await redisWith(['--maxmemory-policy', 'noeviction', '--appendonly', 'no']);
    const { log, lines } = capture();
    await checkRedisPolicy(redis, log);
    expect(lines.join('\n')).toContain('AOF persistence is off');
  });

  it('reads the policy from INFO, so a Redis that forbids CONFIG is checked too', async () => {
    const evicting = await redisWith([
      '--rename-command',
      'CONFIG',
      '""',
      '--maxmemory-policy',
      'allkeys-lru',
    ]);
    await expect(checkRedisPolicy(evicting, capture().log)).rejects.toBeInstanceOf(RedisPolicyError);
    const safe = await redisWith([
      '--rename-command',
      'CONFIG',
      '""',
      '--maxmemory-policy',
      'noeviction',
      '--appendonly',
      'yes',
      '--dir',
      mkdtempSync(join(tmpdir(), 'herald-redis-')),
    ]);
    const { log, lines } = capture();
    await checkRedisPolicy(safe, log);
    expect(lines).toEqual([]);
  });
});

describe('the web and worker processes', () => {
  /** The spawned processes' database: this file's own, dropped after it. */
  const mongo = new URL(process.env.MONGO_URL ?? DEFAULT_MONGO_URL);
  mongo.pathname = `/herald_test_${uniqueName('redis_policy')}`;
  afterAll(async () => {
    const conn = await mongoose.createConnection(mongo.toString()).asPromise();
    await conn.dropDatabase();
    await conn.close();
  });

  /** Runs an entry point against `redisPort` until it exits; answers its exit code and output. */
  async function run(entry: string, redisPort: number): Promise<{ code: number | null; out: string }> {
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: {
        ...process.env,
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        MONGO_URL: mongo.toString(),
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        PORT: String(await freePort()),
        METRICS_PORT: '0',
        HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    return { code, out };
  }

  it('both refuse to start on an evicting Redis: the web writes accepted jobs, the worker keeps them', async () => {
    const evicting = await redisWith(['--maxmemory-policy', 'allkeys-lru']);
    const port = Number(evicting.options.port);
    for (const entry of ['src/bin/web.ts', 'src/bin/worker.ts']) {
      const { code, out } = await run(entry, port);
      expect(code, out).toBe(1);
      expect(out).toContain('maxmemory-policy is \\"allkeys-lru\\"');
      expect(out).not.toContain('"listening"');
    }
  }, 30_000);
});
