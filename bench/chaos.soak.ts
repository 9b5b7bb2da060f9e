/**
 * `npm run soak:chaos`: issue 22's chaos run. 2 web and 3 worker processes on the Redis that the
 * environment names (REDIS_MODE, REDIS_URL, REDIS_SENTINELS ..., as the processes read them),
 * CHAOS_MESSAGES messages across CHAOS_BOTS bots, each bot held to its own small bucket; a
 * worker is SIGKILLed CHAOS_KILLS times (and replaced) and, on a cluster or behind Sentinel,
 * the Redis master is failed over once, all while messages are being sent. It prints accepted,
 * refused (ingest answers other than 200: during a failover these are 503s the sender may
 * retry), sent, lost (accepted and never at the relay), duplicates (nonces the relay saw twice)
 * and each bot's worst window against capacity + rate x t at the relay, the failed messages by
 * reason (whether the relay had each: DELIVERY_IN_DOUBT=hold holds IN_DOUBT what it cannot tell),
 * then a verdict line.
 *
 * The relay is bench/lib/relay-recorder.ts (its own process, its own clock). Set-up (bots,
 * pipes) goes through an app in this process on a fresh database and prefix, dropped at the end.
 *
 * Environment: CHAOS_MESSAGES (5000), CHAOS_RATE (messages per second, 150), CHAOS_BOTS (50), CHAOS_KILLS (3), CHAOS_FAILOVER (1 on a
 * cluster or behind Sentinel, else 0), CHAOS_BOT_CAPACITY (10), CHAOS_BOT_RATE (per second, 20),
 * CHAOS_DRAIN_TIMEOUT_MS (180000), CHAOS_FAILOVER_KIND (cluster: `manual`, the default, a CLUSTER
 * FAILOVER on a replica; or `kill`, a master SIGKILLed outright, its replica promoted once the
 * cluster's node timeout passes, and the dead node started again at the end, as a replica).
 */

import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { overBucket } from '../test/helpers/rate.js';
import { freePort } from '../test/helpers/spawn.js';
import { startTestApp, TEST_ADMIN_TOKEN } from '../test/helpers/test-app.js';
import { createPipe, createRelayWorld } from '../test/workers/helpers.js';
import { type BenchProcess, procfileNodeFlags, spawnProcess } from './lib/processes.js';

const bounded = (name: string, fallback: number, min: number, max: number): number => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(v) || v < min || v > max) throw new Error(`${name} must be ${min}..${max}`);
  return v;
};
const MODE = process.env.REDIS_MODE ?? 'standalone';
const MESSAGES = bounded('CHAOS_MESSAGES', 5000, 1, 1_000_000);
const RATE = bounded('CHAOS_RATE', 150, 1, 100_000);
const BOTS = bounded('CHAOS_BOTS', 50, 1, 10_000);
const KILLS = bounded('CHAOS_KILLS', 3, 0, 100);
const FAILOVERS = bounded('CHAOS_FAILOVER', MODE === 'standalone' ? 0 : 1, 0, 1);
const FAILOVER_KIND = process.env.CHAOS_FAILOVER_KIND ?? 'manual';
if (FAILOVER_KIND !== 'manual' && FAILOVER_KIND !== 'kill')
  throw new Error('CHAOS_FAILOVER_KIND must be manual or kill');
if (FAILOVER_KIND === 'kill' && MODE !== 'cluster')
  throw new Error('CHAOS_FAILOVER_KIND=kill is for REDIS_MODE=cluster');
/** The port of a cluster master the run killed, started again at its end. */
let killedMaster: number | null = null;
const CAPACITY = bounded('CHAOS_BOT_CAPACITY', 10, 1, 1_000_000);
const PER_SECOND = bounded('CHAOS_BOT_RATE', 20, 1, 1_000_000);
const DRAIN_TIMEOUT_MS = bounded('CHAOS_DRAIN_TIMEOUT_MS', 180_000, 1000, 3_600_000);
const WEBS = 2;
const WORKERS = 3;
/** Requests the sender keeps open at most. */
const MAX_IN_FLIGHT = 64;
/** Slack for the request between the budget's answer and the relay's clock, in ms of refill. */
const SLACK_MS = 100;

/** When sending started: the report's times count from it. */
let t0 = Date.now();
const since = (at: number): string => `${((at - t0) / 1000).toFixed(1)} s`;
const fmt = (n: number): string => n.toLocaleString('en-US');

/** Fails the Redis master over once: CLUSTER FAILOVER on a replica, or SENTINEL FAILOVER. */
async function failOver(): Promise<string> {
  if (MODE === 'sentinel') {
    const [host, port] = (process.env.REDIS_SENTINELS ?? '').split(',')[0]?.split(':') ?? [];
    const name = process.env.REDIS_SENTINEL_NAME ?? 'herald';
    const sentinel = new Redis({ host, port: Number(port), lazyConnect: true });
    try {
      await sentinel.connect();
      const before = await sentinel.call('SENTINEL', 'get-master-addr-by-name', name);
      await sentinel.call('SENTINEL', 'FAILOVER', name);
      return `SENTINEL FAILOVER ${name} (master was ${(before as string[]).join(':')})`;
    } finally {
      sentinel.disconnect();
    }
  }
  // Cluster: the first seed's view of the nodes; a replica takes over from its master.
  const seed = new URL((process.env.REDIS_URL ?? 'redis://127.0.0.1:7000').split(',')[0] as string);
  const probe = new Redis({ host: seed.hostname, port: Number(seed.port), lazyConnect: true });
  try {
    await probe.connect();
    const nodes = String(await probe.call('CLUSTER', 'NODES'))
      .trim()
      .split('\n')
      .map((l) => l.split(' '));
    if (FAILOVER_KIND === 'kill') {
      // A master that is not the first seed, so that clients starting later still find the cluster.
      const master = nodes.find(
        (n) => (n[2] ?? '').includes('master') && !(n[1] ?? '').startsWith(`${seed.hostname}:${seed.port}@`),
      );
      if (master === undefined) throw new Error('the cluster has no master past the first seed');
      const port = Number((master[1] as string).split(':')[1]?.split('@')[0]);
      const node = new Redis({ host: seed.hostname, port, lazyConnect: true });
      try {
        await node.connect();
        const pid = Number(/process_id:(\d+)/.exec(String(await node.call('INFO', 'server')))?.[1]);
        killedMaster = port;
        process.kill(pid, 'SIGKILL');
        return `SIGKILL cluster master ${master[1]} (pid ${pid})`;
      } finally {
        node.disconnect();
      }
    }
    const replica = nodes.find((n) => (n[2] ?? '').includes('slave'));
    if (replica === undefined) throw new Error('the cluster has no replica to fail over to');
    const [host, rest] = (replica[1] as string).split(':') as [string, string];
    const node = new Redis({ host, port: Number(rest.split('@')[0]), lazyConnect: true });
    try {
      await node.connect();
      await node.call('CLUSTER', 'FAILOVER');
      return `CLUSTER FAILOVER on replica ${replica[1]} of ${replica[3]}`;
    } finally {
      node.disconnect();
    }
  } finally {
    probe.disconnect();
  }
}

interface Arrival {
  readonly nonce: string;
  readonly at: number;
}
const relay = await spawnProcess('bench/lib/relay-recorder.ts', {}, 'ready');
const relayUrl = `http://127.0.0.1:${/ready (\d+)/.exec(relay.output())?.[1]}`;
const arrivals = async (): Promise<Arrival[]> =>
  ((await (await fetch(`${relayUrl}/arrivals`)).json()) as { arrivals: Arrival[] }).arrivals;
const loadAtStart = loadavg()[0] as number;

// The report's reads go to a store the run has kept busy: they may wait longer than a request.
const app = await startTestApp('soak_chaos', { LOG_LEVEL: 'warn', DB_TIMEOUT_MS: '60000' });
const webs: BenchProcess[] = [];
const workers: BenchProcess[] = [];
try {
  const pipes: string[] = [];
  for (let b = 0; b < BOTS; b++) {
    const world = await createRelayWorld(app, relayUrl, {
      name: `chaos bot ${b}`,
      upstream_token: `chaos-token-${b}`,
      rate_capacity: CAPACITY,
      rate_per_second: PER_SECOND,
    });
    pipes.push(
      (await createPipe(app, world, { rate_limit: { capacity: 100_000, per_second: 100_000 } })).token,
    );
  }

  const mongo = new URL(app.config.mongoUrl);
  mongo.pathname = `/herald_test_${app.config.redisPrefix.replace(/^herald-test-/, '')}`;
  const common = {
    MONGO_URL: mongo.toString(),
    REDIS_PREFIX: app.config.redisPrefix,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    // info: the start-up lines ("listening", "worker started") are what readiness waits for.
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
  };
  const workerEnv = {
    ...common,
    METRICS_PORT: '0',
    WORKER_CONCURRENCY: '16',
    LOCK_DURATION_MS: '3000',
    STALLED_INTERVAL_MS: '1000',
    RELAY_TIMEOUT_MS: '2000',
    SENT_LOG_CLAIM_IDLE_MS: '2000',
    SHUTDOWN_TIMEOUT_MS: '5000',
  };
  const startWorker = () =>
    spawnProcess('src/bin/worker.ts', workerEnv, '"worker started"', procfileNodeFlags('worker'));
  const webUrls: string[] = [];
  for (let i = 0; i < WEBS; i++) {
    const port = await freePort();
    webs.push(
      await spawnProcess(
        'src/bin/web.ts',
        { ...common, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` },
        '"listening"',
        procfileNodeFlags('web'),
      ),
    );
    webUrls.push(`http://127.0.0.1:${port}`);
  }
  workers.push(...(await Promise.all(Array.from({ length: WORKERS }, startWorker))));
  console.log(
    `soak:chaos on ${MODE}: ${WEBS} web and ${WORKERS} worker processes, ${fmt(MESSAGES)} messages at ${RATE}/s over ${BOTS} bots (each ${CAPACITY} + ${PER_SECOND}/s), ${KILLS} SIGKILLs, ${FAILOVERS} failover`,
  );

  // --- The sender: every message once, round robin over bots and web processes.
  const botOf = new Map<string, number>();
  const refusals = new Map<string, number>();
  let next = 0;
  const sendStart = Date.now();
  t0 = sendStart;
  const sendOne = async (n: number): Promise<void> => {
    const bot = n % BOTS;
    const url = `${webUrls[n % WEBS]}/api/v3/message/send-pipemsg?access_token=${encodeURIComponent(pipes[bot] as string)}`;
    try {
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ content: `chaos ${n}` }),
        signal: AbortSignal.timeout(15_000),
      });
      const body = (await r.json()) as { code?: number; data?: { msg_id?: string } };
      if (r.status === 200 && body.data?.msg_id) botOf.set(body.data.msg_id, bot);
      else refusals.set(`${r.status} ${body.code}`, (refusals.get(`${r.status} ${body.code}`) ?? 0) + 1);
    } catch (err) {
      const why = err instanceof Error ? err.name : 'error';
      refusals.set(why, (refusals.get(why) ?? 0) + 1);
    }
  };
  // At RATE messages per second (from a schedule: a slow answer does not shift the next sends),
  // so that the kills and the failover land while messages are being sent and delivered.
  const sender = (async () => {
    const inFlight = new Set<Promise<void>>();
    while (next < MESSAGES) {
      const due = Math.min(MESSAGES, Math.floor(((Date.now() - sendStart) * RATE) / 1000));
      while (next < due && inFlight.size < MAX_IN_FLIGHT) {
        const sending = sendOne(next++).finally(() => inFlight.delete(sending));
        inFlight.add(sending);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.all(inFlight);
  })();

  // --- The chaos: kills and the failover spread over the sending, at fractions of the messages.
  const events: Array<{ at: number; what: string }> = [];
  const steps: Array<{ share: number; act: () => Promise<string> }> = [];
  const replacements: Array<Promise<void>> = [];
  for (let k = 0; k < KILLS; k++) {
    steps.push({
      share: (k + 1) / (KILLS + 2),
      act: async () => {
        const victim = workers.shift() as BenchProcess;
        await victim.kill();
        // The replacement starts in the background: the next step keeps to its own time.
        replacements.push(startWorker().then((w) => void workers.push(w)));
        return `SIGKILL worker ${victim.pid}`;
      },
    });
  }
  if (FAILOVERS > 0) steps.push({ share: (KILLS + 1.5) / (KILLS + 2), act: failOver });
  steps.sort((a, b) => a.share - b.share);
  for (const step of steps) {
    while (next < MESSAGES * step.share) await new Promise((r) => setTimeout(r, 20));
    const at = Date.now();
    events.push({ at, what: await step.act() });
    console.error(`${since(at)}: ${(events.at(-1) as { what: string }).what} (sent so far ${next})`);
  }
  await sender;
  await Promise.all(replacements);
  const sendEnd = Date.now();

  // --- Until every accepted message reached the relay (or the drain timeout).
  const accepted = [...botOf.keys()];
  let seen: Arrival[] = [];
  for (;;) {
    seen = await arrivals();
    const unique = new Set(seen.map((a) => a.nonce));
    const notYet = accepted.filter((id) => !unique.has(id));
    // A failed message never comes (with DELIVERY_IN_DOUBT=hold, those held IN_DOUBT): once
    // few are left, their records say whether the rest is worth waiting for.
    let allEnded = notYet.length === 0;
    if (!allEnded && notYet.length <= 200) {
      allEnded = true;
      for (const id of notYet) {
        if ((await app.res.store.deliveries.get(id))?.status === 'failed') continue;
        allEnded = false;
        break;
      }
    }
    if (allEnded || Date.now() - sendEnd > DRAIN_TIMEOUT_MS) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const drained = Date.now();

  // --- The report.
  const perNonce = new Map<string, number[]>();
  for (const a of seen) perNonce.set(a.nonce, [...(perNonce.get(a.nonce) ?? []), a.at]);
  const missing = accepted.filter((id) => !perNonce.has(id));
  const missingStatus = new Map<string, number>();
  for (const id of missing) {
    const status = (await app.res.store.deliveries.get(id))?.status ?? 'no record';
    missingStatus.set(status, (missingStatus.get(status) ?? 0) + 1);
  }
  const failed = missingStatus.get('failed') ?? 0;
  const lost = missing.length - failed;
  const duplicates = [...perNonce.values()].filter((list) => list.length > 1).length;
  const byBot = new Map<number, number[]>();
  for (const [nonce, list] of perNonce) {
    const bot = botOf.get(nonce);
    if (bot !== undefined) byBot.set(bot, [...(byBot.get(bot) ?? []), list[0] as number]);
  }
  let breaches = 0;
  let worst = '';
  for (const [bot, times] of byBot) {
    const over = overBucket(times, { capacity: CAPACITY, perSecond: PER_SECOND }, SLACK_MS);
    if (over) {
      breaches++;
      worst ||= `bot ${bot}: ${over.sends} sends within ${over.withinMs} ms (allowed ${over.allowed})`;
    }
  }
  const refused = [...refusals.values()].reduce((a, b) => a + b, 0);
  console.log(
    `load average (1 min): ${loadAtStart.toFixed(1)} at the start, ${(loadavg()[0] as number).toFixed(1)} at the end`,
  );
  console.log(
    `sending took ${((sendEnd - sendStart) / 1000).toFixed(1)} s; drained ${((drained - sendEnd) / 1000).toFixed(1)} s after`,
  );
  for (const e of events) console.log(`  ${since(e.at)}: ${e.what}`);
  console.log(`accepted: ${fmt(accepted.length)} of ${fmt(MESSAGES)}`);
  console.log(
    `refused at ingest: ${fmt(refused)}${refused ? ` (${[...refusals].map(([k, n]) => `${k}: ${n}`).join(', ')})` : ''}`,
  );
  console.log(`sent (at the relay): ${fmt(accepted.length - missing.length)}`);
  console.log(
    `not at the relay: ${missing.length}${missing.length ? ` (${[...missingStatus].map(([k, n]) => `${k}: ${n}`).join(', ')})` : ''}`,
  );
  console.log(`lost: ${lost}`);
  // Every failed message by reason, and whether the relay had it (IN_DOUBT: held, not sent again).
  const failedRecords = (
    await app.res.store.deliveries.list(
      { status: 'failed' },
      { page: 1, pageSize: 10_000, sort: { field: 'created_at', dir: 1 } },
    )
  ).items.filter((r) => botOf.has(r.msg_id));
  const byReason = new Map<string, { atRelay: number; not: number }>();
  for (const r of failedRecords) {
    const c = byReason.get(r.reason ?? 'none') ?? { atRelay: 0, not: 0 };
    if (perNonce.has(r.msg_id)) c.atRelay++;
    else c.not++;
    byReason.set(r.reason ?? 'none', c);
  }
  console.log(
    `failed: ${failedRecords.length}${[...byReason].map(([k, c]) => `; ${k}: ${c.atRelay + c.not} (${c.atRelay} of them at the relay, ${c.not} not: a replay sends those)`).join('')}`,
  );
  console.log(`duplicates: ${duplicates}`);
  const kills = events.filter((e) => e.what.startsWith('SIGKILL')).map((e) => e.at);
  for (const [nonce, list] of perNonce) {
    if (list.length < 2) continue;
    const first = list[0] as number;
    const kill = kills.reduce(
      (best, k) => (Math.abs(k - first) < Math.abs(best - first) ? k : best),
      Infinity,
    );
    const against = Number.isFinite(kill)
      ? `, ${first <= kill ? `${kill - first} ms before` : `${first - kill} ms after`} the nearest kill`
      : '';
    console.log(
      `  ${nonce} (bot ${botOf.get(nonce)}): first at ${since(first)}${against}; again ${list
        .slice(1)
        .map((t) => `+${t - first} ms`)
        .join(', ')}`,
    );
  }
  console.log(
    `bots over capacity + rate x t (${SLACK_MS} ms slack) at the relay: ${breaches} of ${byBot.size}${worst ? `; worst: ${worst}` : ''}`,
  );
  const ok = lost === 0 && duplicates === 0 && breaches === 0;
  console.log(`verdict: ${ok ? 'PASS' : 'FAIL'} (0 lost, 0 duplicated, every bot within its bucket)`);
  process.exitCode = ok ? 0 : 1;
} finally {
  await Promise.all([...workers, ...webs].map((p) => p.stop()));
  await app.close();
  await relay.stop();
  if (killedMaster !== null) restartNode(killedMaster);
}

/** Starts the killed cluster node again (scripts/dev-services.sh does): it rejoins as a replica. */
function restartNode(port: number): void {
  const started = spawnSync('bash', ['scripts/dev-services.sh', 'cluster'], { encoding: 'utf8' });
  console.log(
    started.status === 0
      ? `started the killed master's node on port ${port} again (it rejoins as a replica)`
      : `could not start the killed node on port ${port} again: ${started.stderr}`,
  );
}
