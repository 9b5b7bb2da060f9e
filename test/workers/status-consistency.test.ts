import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PipeMessageStatus, pipeMessageStatus } from '../../src/domain/pipes/status.js';
import { type RunningWorkers, startWorkers } from '../../src/workers/index.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  answer,
  createPipe,
  createRelayWorld,
  ok,
  type RelayServer,
  sendPipe,
  startRelayServer,
} from './helpers.js';

/**
 * pipemsg-status read in a loop while a real worker delivers: every read is checked, not only
 * the last. A read that says sent or failed must carry that outcome's details (sent_at, the
 * exact attempts, the relay's id; reason and code), and a terminal status never goes back.
 */
let app: TestApp;
let workers: RunningWorkers;
let relay: RelayServer;

beforeAll(async () => {
  app = await startTestApp('status_consistency', {
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    WORKER_CONCURRENCY: '8',
    RETRY_BASE_MS: '20',
  });
  workers = await startWorkers(app.res, app.res.pipeRuntime.queue);
  relay = await startRelayServer();
});

afterAll(async () => {
  await workers?.close(2_000);
  await relay?.close();
  await app?.close();
});

/** What each message's content asks of the relay, and the status it must end in. */
const KINDS = [
  { content: 'plain', status: 'sent', attempts: 1 },
  { content: 'retry 1', status: 'sent', attempts: 2 },
  { content: 'retry 2', status: 'sent', attempts: 3 },
  { content: 'reject', status: 'failed', attempts: 1 },
] as const;
const MESSAGES = 48;

describe('pipemsg-status polled while a worker delivers', () => {
  it('never reads a terminal status without its details, nor an inexact attempt count', async () => {
    const w = await createRelayWorld(app, relay.url, { name: 'status poll bot', upstream_token: 'tok-poll' });
    const pipe = await createPipe(app, w);
    // The relay answers 500 to the first n requests of a `retry n` message (same nonce), and
    // refuses `reject` for good.
    const seen = new Map<string, number>();
    relay.handler = (body, res) => {
      const nonce = String(body.nonce);
      const n = (seen.get(nonce) ?? 0) + 1;
      seen.set(nonce, n);
      const retries = /^retry (\d)$/.exec(String(body.content));
      if (retries && n <= Number(retries[1])) return answer(res, 500, { code: 500, message: 'try again' });
      if (body.content === 'reject') return answer(res, 400, { code: 40000, message: 'no such channel' });
      ok(res, `up-${nonce}`);
    };
    const asker = { bot_id: w.bot.id };
    const expected = new Map<string, (typeof KINDS)[number]>();
    const violations: string[] = [];
    const terminal = new Map<string, PipeMessageStatus>();
    let reads = 0;
    const check = (id: string, s: PipeMessageStatus) => {
      reads++;
      const want = expected.get(id) as (typeof KINDS)[number];
      const bad = (why: string) => violations.push(`${why}: ${JSON.stringify(s)}`);
      if (s.status === 'sent') {
        if (want.status !== 'sent') bad('sent, expected failed');
        if (s.attempts !== want.attempts) bad(`sent with attempts ${s.attempts}, made ${want.attempts}`);
        if (s.sent_at === null) bad('sent without sent_at');
        if (s.upstream_msg_id !== `up-${id}`) bad('sent without the relay id');
        if (s.error !== null) bad('sent with an error');
      } else if (s.status === 'failed') {
        if (s.error?.reason !== 'UPSTREAM_REJECTED' || s.error.code !== 40326 || !s.error.message) {
          bad('failed without its reason, code and message');
        }
        if (s.attempts !== want.attempts) bad(`failed with attempts ${s.attempts}, made ${want.attempts}`);
      } else {
        if (terminal.has(id)) bad(`${s.status} after ${terminal.get(id)?.status}`);
        if (s.attempts >= want.attempts) bad(`still ${s.status} with attempts ${s.attempts}`);
        return;
      }
      terminal.set(id, s);
    };
    // Each message is polled back to back by a loop of its own, from its acceptance until its
    // record is settled in the store (so the reads span the job's completion and the
    // write-behind record alike).
    const poll = async (id: string) => {
      for (;;) {
        check(id, await pipeMessageStatus(app.res, id, asker));
        if (terminal.has(id) && (await app.res.store.deliveries.settledAmong([id])).has(id)) {
          // One read more, answered by the settled record.
          check(id, await pipeMessageStatus(app.res, id, asker));
          return;
        }
      }
    };
    const polls: Array<Promise<void>> = [];
    for (let i = 0; i < MESSAGES; i++) {
      const kind = KINDS[i % KINDS.length] as (typeof KINDS)[number];
      const id = await sendPipe(app, pipe.token, { content: kind.content });
      expected.set(id, kind);
      polls.push(poll(id));
    }
    await Promise.all(polls);
    // As text, so that a failure shows the reads themselves.
    expect(violations.slice(0, 10).join('\n')).toBe('');
    expect(terminal.size).toBe(MESSAGES);
    for (const [id, s] of terminal) expect(s.status, id).toBe(expected.get(id)?.status);
    expect(reads).toBeGreaterThan(MESSAGES * 2);
  }, 120_000);
});
