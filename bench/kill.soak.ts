/**
 * `npm run soak:kill`: how many messages a relay gets twice when worker processes die by SIGKILL
 * under steady load (issue 17's test; goal: at most 1 duplicate per 10 kills).
 *
 * This process is the web side (the app in-process, on a fresh database and Redis prefix, as the
 * tests set it up). The relay is a local HTTP server in a process of its own
 * (bench/lib/relay-recorder.ts) that answers 200 at once and records each request's nonce,
 * arrival time and connection. This process sends plain messages through
 * `POST /api/v3/message/send-pipemsg` at a steady rate while 2 worker processes
 * (`node --import tsx src/bin/worker.ts`, the Procfile's node flags) deliver them to the relay,
 * with short locks so that a dead worker's jobs come back within seconds. SOAK_KILL_EVERY_MS after
 * the last replacement was ready, the older worker is SIGKILLed and a new one started. Sending
 * stops one interval after the last kill; once every accepted message is sent or failed, it
 * prints accepted, sent, failed, lost (accepted, never at the relay, not failed), duplicates
 * (nonces the relay saw more than once: the gap between the copies, where the first copy stood
 * against the nearest kill, and when its connection closed), and the goal line. Then it drops
 * the database and the prefix's keys.
 *
 * Environment: SOAK_KILLS (default 10), SOAK_RATE (messages per second, default 200),
 * SOAK_KILL_EVERY_MS (default 1500), SOAK_CONCURRENCY (jobs per worker, default 16),
 * SOAK_LOCK_DURATION_MS (default 3000), SOAK_STALLED_INTERVAL_MS (default 1000),
 * SOAK_DRAIN_TIMEOUT_MS (longest wait for the last messages, default 120000).
 */

import { loadavg } from 'node:os';
import { QueueEvents } from 'bullmq';
import { PIPE_QUEUE } from '../src/queue/pipe-messages.js';
import { startTestApp, TEST_ADMIN_TOKEN } from '../test/helpers/test-app.js';
import { createPipe, createRelayWorld } from '../test/workers/helpers.js';
import { type BenchProcess, procfileNodeFlags, spawnProcess } from './lib/processes.js';

const bounded = (name: string, fallback: number, min: number, max: number): number => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(v) || v < min || v > max) throw new Error(`${name} must be ${min}..${max}`);
  return v;
};
const KILLS = bounded('SOAK_KILLS', 10, 1, 100);
const RATE = bounded('SOAK_RATE', 200, 1, 2000);
const KILL_EVERY_MS = bounded('SOAK_KILL_EVERY_MS', 1500, 200, 60_000);
const CONCURRENCY = bounded('SOAK_CONCURRENCY', 16, 1, 256);
const LOCK_DURATION_MS = bounded('SOAK_LOCK_DURATION_MS', 3000, 1000, 60_000);
const STALLED_INTERVAL_MS = bounded('SOAK_STALLED_INTERVAL_MS', 1000, 100, 60_000);
const DRAIN_TIMEOUT_MS = bounded('SOAK_DRAIN_TIMEOUT_MS', 120_000, 1000, 600_000);
const WORKERS = 2;
/** Requests the sender keeps open at most; past it the rate falls behind (and the report says so). */
const MAX_IN_FLIGHT = 64;

const t0 = Date.now();
const since = (at: number): string => `${((at - t0) / 1000).toFixed(3)} s`;
const fmt = (n: number): string => n.toLocaleString('en-US');

// --- The relay, in its own process: answers at once, records every request.
interface Arrival {
  readonly nonce: string;
  readonly at: number;
  readonly conn: number;
}
const relay = await spawnProcess('bench/lib/relay-recorder.ts', {}, 'ready');
const relayUrl = `http://127.0.0.1:${/ready (\d+)/.exec(relay.output())?.[1]}`;
const loadAtStart = loadavg()[0] as number;

// --- The web side, a relay bot and its pipe.
const app = await startTestApp('soak_kill', { LOG_LEVEL: 'warn' });
const workers: BenchProcess[] = [];
let sending = true;
const events = new QueueEvents(PIPE_QUEUE, {
  connection: { url: app.config.redisUrl },
  prefix: app.config.redisPrefix,
});
try {
  const world = await createRelayWorld(app, relayUrl, {
    name: 'soak bot',
    upstream_token: 'soak-token',
    rate_capacity: 1_000_000,
    rate_per_second: 1_000_000,
  });
  const pipe = await createPipe(app, world, { rate_limit: { capacity: 100_000, per_second: 100_000 } });
  await events.waitUntilReady();
  let takenOver = 0;
  events.on('stalled', () => {
    takenOver++;
  });

  const mongo = new URL(app.config.mongoUrl);
  mongo.pathname = `/herald_test_${app.config.redisPrefix.replace(/^herald-test-/, '')}`;
  const workerEnv = {
    MONGO_URL: mongo.toString(),
    REDIS_URL: app.config.redisUrl,
    REDIS_PREFIX: app.config.redisPrefix,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    LOG_LEVEL: 'info',
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    WORKER_CONCURRENCY: String(CONCURRENCY),
    LOCK_DURATION_MS: String(LOCK_DURATION_MS),
    STALLED_INTERVAL_MS: String(STALLED_INTERVAL_MS),
    // The lock must outlast a relay request (start-up refuses otherwise).
    RELAY_TIMEOUT_MS: String(Math.floor(LOCK_DURATION_MS * 0.66)),
    SENT_LOG_CLAIM_IDLE_MS: '2000',
    SHUTDOWN_TIMEOUT_MS: '5000',
  };
  const startWorker = () =>
    spawnProcess('src/bin/worker.ts', workerEnv, '"worker started"', procfileNodeFlags('worker'));
  /**
   * A worker that fails to start is started again (twice at most): FerretDB's SQLite backend can
   * refuse a start-up's index creation while it is busy (SQLITE_BUSY).
   */
  const startWorkerWithRetries = async (): Promise<BenchProcess> => {
    for (let tries = 1; ; tries++) {
      try {
        return await Promise.race([
          startWorker(),
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error('a worker was not ready within 60 s')), 60_000).unref(),
          ),
        ]);
      } catch (err) {
        if (tries === 3) throw err;
        console.error(`a worker failed to start (${String(err).slice(0, 300)}); starting another`);
      }
    }
  };
  workers.push(...(await Promise.all(Array.from({ length: WORKERS }, startWorkerWithRetries))));
  console.log(
    `soak:kill: ${WORKERS} workers (concurrency ${CONCURRENCY}, lock ${LOCK_DURATION_MS} ms, stalled check every ${STALLED_INTERVAL_MS} ms), ${RATE} msg/s, ${KILLS} SIGKILLs every >= ${KILL_EVERY_MS} ms`,
  );

  // --- The sender: steady rate, from a schedule (a slow answer does not shift the next sends).
  const accepted: string[] = [];
  let refused = 0;
  let inFlight = 0;
  let maxBehind = 0;
  const sendUrl = `${app.base}/api/v3/message/send-pipemsg?access_token=${encodeURIComponent(pipe.token)}`;
  const sendOne = async (n: number) => {
    inFlight++;
    try {
      const r = await fetch(sendUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ content: `soak ${n}` }),
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await r.json()) as { data?: { msg_id?: string } };
      if (r.status === 200 && body.data?.msg_id) accepted.push(body.data.msg_id);
      else refused++;
    } catch {
      refused++;
    } finally {
      inFlight--;
    }
  };
  const sendStart = Date.now();
  let scheduled = 0;
  const sender = (async () => {
    while (sending) {
      const due = Math.floor(((Date.now() - sendStart) * RATE) / 1000);
      maxBehind = Math.max(maxBehind, due - scheduled);
      while (scheduled < due && inFlight < MAX_IN_FLIGHT) void sendOne(scheduled++);
      await new Promise((r) => setTimeout(r, 5));
    }
    while (inFlight > 0) await new Promise((r) => setTimeout(r, 5));
  })();

  // --- The kills: the older worker, once the interval has passed and the last replacement is up.
  const kills: number[] = [];
  /** When each killed worker's exit was seen (this process's clock, as the kills'). */
  const exits: number[] = [];
  // A kill comes SOAK_KILL_EVERY_MS after the last replacement was ready (a worker's start-up
  // takes seconds on a busy machine): each one meets two workers that have been delivering.
  let lastReady = sendStart;
  for (let k = 0; k < KILLS; k++) {
    const wait = lastReady + KILL_EVERY_MS - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const victim = workers.shift() as BenchProcess;
    const at = Date.now();
    await victim.kill();
    kills.push(at);
    exits.push(Date.now());
    const startedAt = Date.now();
    const replacement = await startWorkerWithRetries();
    workers.push(replacement);
    lastReady = Date.now();
    console.error(
      `kill #${k + 1} at ${since(at)}: pid ${victim.pid}, exit seen +${(exits[k] as number) - at} ms; replacement ready in ${Date.now() - startedAt} ms; accepted so far ${accepted.length}`,
    );
  }
  await new Promise((r) => setTimeout(r, Math.max(0, lastReady + KILL_EVERY_MS - Date.now())));
  sending = false;
  await sender;
  const sendEnd = Date.now();
  const sentRate = accepted.length / ((sendEnd - sendStart) / 1000);

  // --- Until every accepted message is sent or failed (the queue holds nothing else).
  const queue = app.res.pipeRuntime.queue;
  const drainStart = Date.now();
  let counts: Record<string, number> = {};
  for (;;) {
    counts = await queue.getJobCounts('completed', 'failed');
    if ((counts.completed ?? 0) + (counts.failed ?? 0) >= accepted.length) break;
    if (Date.now() - drainStart > DRAIN_TIMEOUT_MS) break;
    if ((Date.now() - drainStart) % 5000 < 100) {
      console.error(`draining: ${(counts.completed ?? 0) + (counts.failed ?? 0)} of ${accepted.length} done`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const drained = Date.now();
  const failedJobs = await queue.getFailed(0, -1);
  const failedIds = new Set(failedJobs.map((j) => j.id as string));
  const failedReasons = new Map<string, number>();
  for (const j of failedJobs) failedReasons.set(j.failedReason, (failedReasons.get(j.failedReason) ?? 0) + 1);

  // --- The report.
  const recorded = (await (await fetch(`${relayUrl}/arrivals`)).json()) as {
    arrivals: Arrival[];
    closedAt: Record<string, number>;
  };
  const arrivals = recorded.arrivals;
  /** When each relay connection closed (a SIGKILLed worker's connections close as it dies). */
  const connClosedAt = new Map(Object.entries(recorded.closedAt).map(([k, v]) => [Number(k), v]));
  const perNonce = new Map<string, Arrival[]>();
  for (const a of arrivals) {
    const list = perNonce.get(a.nonce);
    if (list) list.push(a);
    else perNonce.set(a.nonce, [a]);
  }
  const acceptedSet = new Set(accepted);
  const lost = accepted.filter((id) => !perNonce.has(id) && !failedIds.has(id));
  const strangers = [...perNonce.keys()].filter((n) => !acceptedSet.has(n)).length;
  const duplicates = [...perNonce.entries()].filter(([, list]) => list.length > 1);
  const unfinished = accepted.length - (counts.completed ?? 0) - (counts.failed ?? 0);

  const gaps = kills.slice(1).map((k, i) => k - (kills[i] as number));
  console.log(
    `kills: ${kills.length} at ${kills.map(since).join(', ')} ${gaps.length ? ` (intervals ${Math.min(...gaps)}-${Math.max(...gaps)} ms)` : ''}; jobs taken over after kills: ${takenOver}`,
  );
  console.log(
    `send rate: ${sentRate.toFixed(1)} msg/s sustained over ${((sendEnd - sendStart) / 1000).toFixed(1)} s (asked ${RATE}; at most ${maxBehind} sends behind schedule); refused: ${refused}`,
  );
  console.log(
    `load average (1 min): ${loadAtStart.toFixed(1)} at the start, ${(loadavg()[0] as number).toFixed(1)} at the end`,
  );
  console.log(`drained ${((drained - sendEnd) / 1000).toFixed(1)} s after the last send`);
  console.log(`accepted: ${fmt(accepted.length)}`);
  console.log(`sent: ${fmt(counts.completed ?? 0)}`);
  console.log(
    `failed: ${fmt(counts.failed ?? 0)}${failedReasons.size ? ` (${[...failedReasons].map(([r, n]) => `${r}: ${n}`).join(', ')})` : ''}`,
  );
  if (failedIds.size > 0) {
    // Held IN_DOUBT (DELIVERY_IN_DOUBT=hold) or failed otherwise: did the relay have them?
    const atRelay = [...failedIds].filter((id) => perNonce.has(id)).length;
    console.log(
      `  of the failed, at the relay: ${atRelay}; not: ${failedIds.size - atRelay} (a replay sends those)`,
    );
  }
  if (unfinished > 0) console.log(`NOT FINISHED after ${DRAIN_TIMEOUT_MS} ms: ${unfinished}`);
  console.log(`lost: ${lost.length}${lost.length ? ` (${lost.slice(0, 10).join(', ')})` : ''}`);
  if (strangers > 0) console.log(`relay requests with a nonce never accepted: ${strangers}`);
  console.log(`duplicates: ${duplicates.length} of ${fmt(perNonce.size)} messages at the relay`);
  for (const [nonce, list] of duplicates) {
    const first = list[0] as Arrival;
    const nearest = kills.reduce((best, k) =>
      Math.abs(k - first.at) < Math.abs(best - first.at) ? k : best,
    );
    const closed = connClosedAt.get(first.conn);
    const copies = list
      .slice(1)
      .map((a) => `+${a.at - first.at} ms`)
      .join(', ');
    const against =
      first.at <= nearest ? `${nearest - first.at} ms before` : `${first.at - nearest} ms after`;
    const k = kills.indexOf(nearest);
    // A SIGKILLed worker's sockets close as it dies: a first copy whose connection closed then
    // was answered to the killed worker (the relay's clock; its own event loop may lag).
    const connNote =
      closed === undefined
        ? 'its connection still open at the end'
        : `its connection closed at kill +${closed - nearest} ms (the victim's exit seen at +${(exits[k] as number) - nearest} ms)`;
    console.log(
      `  ${nonce}: first at ${since(first.at)}, ${against} kill #${k + 1}, ${connNote}; again ${copies}`,
    );
  }
  console.log(
    `duplicates: ${((duplicates.length * 10) / kills.length).toFixed(1).replace(/\.0$/, '')} per 10 kills (goal <= 1)`,
  );
} finally {
  sending = false;
  await Promise.all(workers.map((w) => w.stop()));
  await events.close();
  await app.close();
  await relay.stop();
}
