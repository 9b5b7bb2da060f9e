import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/index.js';
import { botSlotTag, keySlot } from '../../src/redis/partitions.js';
import { type RunningWorkers, startWorkers } from '../../src/workers/index.js';
import {
  CLUSTER_SEEDS,
  ensureRedisMode,
  redisModeEnv,
  SENTINEL_NAME,
  SENTINELS,
} from '../helpers/redis-modes.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { createPipe, createWorld, type World } from '../workers/helpers.js';

/*
 * A master fails over while senders post messages and a worker delivers them: every answer is
 * 200 or 503 (never 500, never a hang), web and worker reconnect on their own, and every message
 * answered 200 is delivered. Sentinel: SENTINEL FAILOVER (REDIS_WAIT_REPLICAS=1, its default
 * there: the replica held a message before the answer). Cluster (4 partitions): CLUSTER FAILOVER
 * on the replica of the shard that holds the bot's partition (a coordinated switch). In the
 * `processes` project: a failover would cut other files' runs on the same setup.
 */

const DB_TIMEOUT_MS = 1_000;
const SENDERS = 4;

/** How a setup's failover is started and seen. */
interface Failover {
  trigger(): Promise<void>;
  done(): Promise<boolean>;
  close(): void;
}

const client = (hostPort: string) => {
  const [host, port] = hostPort.split(':');
  return new Redis({ host, port: Number(port), lazyConnect: false });
};

async function until(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

async function sentinelFailover(): Promise<Failover> {
  const sentinel = client(SENTINELS[0]);
  const masterPort = async () =>
    ((await sentinel.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_NAME)) as string[])[1];
  // A failover needs a replica in sync with the master (an earlier run's may still be catching up).
  await until('a replica in sync with the Sentinel master', async () => {
    const replicas = (await sentinel.call('SENTINEL', 'REPLICAS', SENTINEL_NAME)) as string[][];
    return replicas.some((r) => {
      const fields = new Map<string, string>();
      for (let i = 0; i + 1 < r.length; i += 2) fields.set(r[i]!, r[i + 1]!);
      return fields.get('flags') === 'slave' && fields.get('master-link-status') === 'ok';
    });
  });
  const before = await masterPort();
  return {
    trigger: async () => {
      await sentinel.call('SENTINEL', 'FAILOVER', SENTINEL_NAME);
    },
    done: async () => (await masterPort()) !== before,
    close: () => sentinel.disconnect(),
  };
}

/** The replica of the shard that serves `botId`'s partition, made its master. */
async function clusterFailover(config: Config, botId: string): Promise<Failover> {
  const seed = client(CLUSTER_SEEDS[0]);
  const slot = keySlot(`{${botSlotTag(config, botId)}}`);
  type Node = [string, number, string];
  const shards = (await seed.call('CLUSTER', 'SLOTS')) as Array<[number, number, ...Node[]]>;
  seed.disconnect();
  const shard = shards.find(([from, to]) => slot >= from && slot <= to);
  const replicaNode = shard?.[3];
  if (!replicaNode) throw new Error(`the shard of slot ${slot} has no replica`);
  const replica = client(`${replicaNode[0]}:${replicaNode[1]}`);
  await until('the replica in sync', async () => {
    const role = (await replica.call('ROLE')) as [string, string, number, string];
    return role[0] === 'slave' && role[3] === 'connected';
  });
  return {
    trigger: async () => {
      await replica.call('CLUSTER', 'FAILOVER');
    },
    done: async () => ((await replica.call('ROLE')) as string[])[0] === 'master',
    close: () => replica.disconnect(),
  };
}

describe.each(['sentinel', 'cluster'] as const)('a %s failover under load', (mode) => {
  let app: TestApp;
  let workers: RunningWorkers;
  let w: World;
  let pipe: { id: string; token: string };
  let failover: Failover;

  beforeAll(async () => {
    ensureRedisMode(mode);
    app = await startTestApp(
      `${mode}_failover`,
      { METRICS_PORT: '0', HOST: '127.0.0.1', RETRY_BASE_MS: '100', DB_TIMEOUT_MS: String(DB_TIMEOUT_MS) },
      {
        override: {
          ...redisModeEnv(mode, mode === 'cluster' ? 4 : 1),
          // FAILOVER_WAIT_REPLICAS=0 measures Sentinel without WAIT (docs/scaling.md).
          ...(process.env.FAILOVER_WAIT_REPLICAS && mode === 'sentinel'
            ? { REDIS_WAIT_REPLICAS: process.env.FAILOVER_WAIT_REPLICAS }
            : {}),
        },
      },
    );
    workers = await startWorkers(app.res, app.res.pipeRuntime.queues);
    w = await createWorld(app, { rate_capacity: 100_000, rate_per_second: 100_000 });
    pipe = await createPipe(app, w);
    failover = mode === 'sentinel' ? await sentinelFailover() : await clusterFailover(app.config, w.bot.id);
  }, 90_000);

  afterAll(async () => {
    failover?.close();
    await workers?.close(2_000);
    await app?.close();
  });

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
    await expect
      .poll(() => answers.filter((a) => a.status === 200).length, { timeout: 10_000 })
      .toBeGreaterThan(50);

    const switchStarted = Date.now();
    await failover.trigger();
    await expect.poll(() => failover.done(), { timeout: 20_000, interval: 100 }).toBe(true);
    const switched = Date.now();
    // Accepted again after the switch, without a restart: the clients found the new master.
    await expect
      .poll(() => answers.filter((a) => a.status === 200 && a.at > switched + 500).length, {
        timeout: 30_000,
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
      `${mode} failover: ${answers.length} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}, ` +
        `slowest ${slowest} ms, switch seen after ${switched - switchStarted} ms, 503s over ${refusedFor} ms`,
    );
    if (process.env.FAILOVER_DEBUG) {
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
    let lost: string[] = accepted;
    const readErrors: string[] = [];
    await expect
      .poll(
        async () => {
          // A busy store may miss DB_TIMEOUT_MS now and then: the next poll reads again.
          const found = await app.res.store.deliveries.statusesOf(accepted).catch((err: Error) => {
            readErrors.push(err.message);
            return null;
          });
          if (found === null) return -1;
          lost = accepted.filter((id) => found.get(id) !== 'sent');
          return accepted.length - lost.length;
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe(accepted.length)
      .finally(() =>
        console.log(
          `${mode} failover: ${accepted.length} accepted, ${lost.length} not delivered` +
            (readErrors.length > 0 ? `; ${readErrors.length} reads failed, last: ${readErrors.at(-1)}` : ''),
        ),
      );
  }, 150_000);
});
