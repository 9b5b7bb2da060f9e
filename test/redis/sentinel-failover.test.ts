import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWorkers, startWorkers } from '../../src/workers/index.js';
import { ensureRedisMode, redisModeEnv, SENTINEL_NAME, SENTINELS } from '../helpers/redis-modes.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { createPipe, createWorld, type World } from '../workers/helpers.js';

/*
 * Sentinel fails the master over while senders post messages and a worker delivers them: every
 * answer is 200 or 503 (never 500, never a hang), web and worker reconnect on their own, and
 * every message answered 200 is delivered (REDIS_WAIT_REPLICAS=1: the replica held it before the
 * answer). In the `processes` project: the failover would cut other files' Sentinel runs.
 */

const DB_TIMEOUT_MS = 1_000;
const SENDERS = 4;

let app: TestApp;
let workers: RunningWorkers;
let sentinel: Redis;
let w: World;
let pipe: { id: string; token: string };

const masterPort = async () =>
  ((await sentinel.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_NAME)) as string[])[1];

async function replicaInSync(): Promise<boolean> {
  const replicas = (await sentinel.call('SENTINEL', 'REPLICAS', SENTINEL_NAME)) as string[][];
  return replicas.some((r) => {
    const fields = new Map<string, string>();
    for (let i = 0; i + 1 < r.length; i += 2) fields.set(r[i]!, r[i + 1]!);
    return fields.get('flags') === 'slave' && fields.get('master-link-status') === 'ok';
  });
}

beforeAll(async () => {
  ensureRedisMode('sentinel');
  const [host, port] = SENTINELS[0].split(':');
  sentinel = new Redis({ host, port: Number(port) });
  // A failover needs a replica in sync with the master (an earlier run's may still be catching up).
  const deadline = Date.now() + 30_000;
  while (!(await replicaInSync())) {
    if (Date.now() > deadline) throw new Error('no replica in sync with the Sentinel master');
    await sleep(200);
  }
  app = await startTestApp(
    'sentinel_failover',
    { METRICS_PORT: '0', HOST: '127.0.0.1', RETRY_BASE_MS: '100', DB_TIMEOUT_MS: String(DB_TIMEOUT_MS) },
    {
      override: {
        ...redisModeEnv('sentinel'),
        ...(process.env.FAILOVER_WAIT_REPLICAS
          ? { REDIS_WAIT_REPLICAS: process.env.FAILOVER_WAIT_REPLICAS }
          : {}),
      },
    },
  );
  workers = await startWorkers(app.res, app.res.pipeRuntime.queues);
  w = await createWorld(app, { rate_capacity: 100_000, rate_per_second: 100_000 });
  pipe = await createPipe(app, w);
}, 90_000);

afterAll(async () => {
  await workers?.close(2_000);
  await app?.close();
  sentinel?.disconnect();
});

describe('a Sentinel failover under load', () => {
  it('answers 200 or 503 throughout, reconnects on its own and delivers every accepted message', async () => {
    const answers: Array<{ status: number; ms: number; at: number; msgId?: string }> = [];
    let stop = false;
    const path = `/api/v3/message/send-pipemsg?access_token=${encodeURIComponent(pipe.token)}`;
    const sender = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const t0 = Date.now();
        const r = await app.request<{ msg_id: string }>('POST', path, { json: { content: `s${n}-${i}` } });
        answers.push({
          status: r.status,
          ms: Date.now() - t0,
          at: t0,
          ...(r.status === 200 ? { msgId: r.body.data.msg_id } : {}),
        });
      }
    };
    const senders = Array.from({ length: SENDERS }, (_, n) => sender(n));
    const before = await masterPort();
    await expect
      .poll(() => answers.filter((a) => a.status === 200).length, { timeout: 10_000 })
      .toBeGreaterThan(50);

    const switchStarted = Date.now();
    await sentinel.call('SENTINEL', 'FAILOVER', SENTINEL_NAME);
    await expect.poll(masterPort, { timeout: 20_000, interval: 100 }).not.toBe(before);
    const switched = Date.now();
    // Accepted again after the switch, without a restart: the clients found the new master.
    await expect
      .poll(() => answers.filter((a) => a.status === 200 && a.at > switched + 500).length, {
        timeout: 20_000,
        interval: 100,
      })
      .toBeGreaterThan(20);
    stop = true;
    await Promise.all(senders);

    const statuses = new Map<number, number>();
    for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
    const slowest = Math.max(...answers.map((a) => a.ms));
    const refused = answers.filter((a) => a.status === 503).map((a) => a.at);
    const refusedFor = refused.length > 0 ? Math.max(...refused) - Math.min(...refused) : 0;
    console.log(
      `failover: ${answers.length} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}, ` +
        `slowest ${slowest} ms, master switch seen after ${switched - switchStarted} ms, 503s over ${refusedFor} ms`,
    );
    if (process.env.FAILOVER_DEBUG) {
      const causes = new Map<string, number>();
      for (const l of app.logs) {
        const text = JSON.stringify(l.error ?? l.err ?? '');
        if (l.msg === 'request' || text === '""') continue;
        const key = `${l.msg}: ${text.slice(0, 160)}`;
        causes.set(key, (causes.get(key) ?? 0) + 1);
      }
      console.log([...causes].sort((a, b) => b[1] - a[1]).slice(0, 15));
      console.log(
        JSON.stringify(app.logs.filter((l) => l.msg === 'request' && l.status === 503).slice(0, 2)),
      );
      const buckets = new Map<number, string>();
      for (const a of answers) {
        const b = Math.floor((a.at - switchStarted) / 500);
        buckets.set(b, `${buckets.get(b) ?? ''}${a.status === 200 ? '.' : 'x'}`);
      }
      console.log([...buckets].map(([b, t]) => `${b * 500}: ${t}`).join('\n'));
    }
    expect([...statuses.keys()].filter((s) => s !== 200 && s !== 503)).toEqual([]);
    // No hang: a request waits at most about DB_TIMEOUT_MS (the WAIT, or a command's deadline).
    expect(slowest).toBeLessThan(DB_TIMEOUT_MS * 4);

    // Every accepted message is delivered, once (the timeline keeps one entry per msg_id).
    const accepted = answers.flatMap((a) => (a.msgId ? [a.msgId] : []));
    let lost: string[] = [];
    await expect
      .poll(
        async () => {
          // A busy store may miss DB_TIMEOUT_MS now and then: the next poll reads again.
          const records = await Promise.all(accepted.map((id) => app.res.store.deliveries.get(id))).catch(
            () => [],
          );
          lost = accepted.filter((_, i) => records[i]?.status !== 'sent');
          return records.filter((r) => r?.status === 'sent').length;
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe(accepted.length)
      .finally(() => console.log(`failover: ${accepted.length} accepted, ${lost.length} not delivered`));
  }, 120_000);
});
