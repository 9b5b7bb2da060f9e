import { request } from 'node:http';
import { Redis } from 'ioredis';
import mongoose from 'mongoose';
import { afterAll, describe, expect, it } from 'vitest';
import { workerHeartbeatsKey } from '../../src/redis/keys.js';
import { freePort, type Proc, startEntry, waitForOutput } from '../helpers/spawn.js';
import { TEST_ADMIN_TOKEN, uniqueName } from '../helpers/test-app.js';

const unique = uniqueName('processes');
const mongoBase = (process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/herald').replace(/\/[^/]*$/, '');
const dbName = `herald_test_${unique}`;

function start(entry: string, env: Record<string, string>): Proc {
  return startEntry(entry, {
    MONGO_URL: `${mongoBase}/${dbName}`,
    REDIS_PREFIX: `herald-test-${unique}`,
    ...env,
  });
}

const waitFor = waitForOutput;

/**
 * Starts a web process on a free port. Another test's client socket can take the port between
 * the check and the child's listen (CI once hit this with a random port), so EADDRINUSE is retried.
 */
async function startWeb(): Promise<{ web: Proc; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const web = start('web', { PORT: String(port), HOST: '127.0.0.1', ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    try {
      await waitFor(web, '"listening"');
      return { web, port };
    } catch (err) {
      if (attempt >= 3 || !web.out.join('').includes('EADDRINUSE')) throw err;
      await web.exited;
    }
  }
}

afterAll(async () => {
  const conn = await mongoose.createConnection(`${mongoBase}/${dbName}`).asPromise();
  await conn.dropDatabase();
  await conn.close();
});

describe('web process', () => {
  it('finishes an in-flight request after SIGTERM, then exits 0', async () => {
    const { web, port } = await startWeb();

    // Start a request and hold its body half-sent, so it is in flight when SIGTERM arrives.
    const body = JSON.stringify({ name: 'drained bot' });
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/admin/api/bot/create',
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(body),
            Authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => {
            text += d.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 5));
      setTimeout(() => {
        web.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(5)), 300);
      }, 200);
    });

    const r = await answer;
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text).data.bot.name).toBe('drained bot');
    expect(await web.exited).toBe(0);
    expect(web.out.join('')).toContain('shut down cleanly');
  });

  it('stops at start-up with one line naming a bad setting', async () => {
    const web = start('web', { PORT: 'eighty', ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    expect(await web.exited).toBe(1);
    expect(web.err.join('')).toBe('config: PORT must be an integer from 1 to 65535 (got "eighty")\n');
  });
});

describe('worker process', () => {
  it('connects, then exits 0 on SIGTERM', async () => {
    const worker = start('worker', { ADMIN_TOKEN: TEST_ADMIN_TOKEN, METRICS_PORT: '0' });
    await waitFor(worker, '"worker started"');
    // Its heartbeat (the back office's overview lists it) is there once it has started...
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const heartbeats = async () =>
      Object.values(await redis.hgetall(workerHeartbeatsKey(`herald-test-${unique}`))).map(
        (v) => JSON.parse(v) as { pid: number },
      );
    try {
      expect((await heartbeats()).map((h) => h.pid)).toEqual([worker.child.pid]);
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
      expect(worker.out.join('')).toContain('shut down cleanly');
      // ...and gone once it has stopped.
      expect(await heartbeats()).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });
});
