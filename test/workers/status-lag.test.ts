import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { openResources, type Resources } from '../../src/resources.js';
import type { DeliveryRecord } from '../../src/store/index.js';
import { type RunningWorkers, startWorkers } from '../../src/workers/index.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
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
 * pipemsg-status shows a message's wait while it lasts, even when the worker's database takes
 * longer to write the record than the wait lasts (a busy store: a second and more was seen).
 * The worker reaches the database through a proxy that holds every byte LAG_MS.
 */
const LAG_MS = 2_500;

let app: TestApp;
let workerRes: Resources;
let workers: RunningWorkers;
let mongoProxy: TcpProxy;
let relay: RelayServer;

beforeAll(async () => {
  const mongoUrl = new URL(process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/herald');
  mongoProxy = await startTcpProxy(mongoUrl.hostname, Number(mongoUrl.port || 27017));
  app = await startTestApp('status_lag', { METRICS_PORT: '0', HOST: '127.0.0.1' });
  const proxied = new URL(app.config.mongoUrl);
  proxied.host = `127.0.0.1:${mongoProxy.port}`;
  workerRes = await openResources(
    { ...app.config, mongoUrl: proxied.toString(), dbTimeoutMs: 4 * LAG_MS },
    createLogger('error', () => {}),
    { dbName: `herald_test_${app.config.redisPrefix.replace(/^herald-test-/, '')}` },
  );
  workers = await startWorkers(workerRes, workerRes.pipeRuntime.queue);
  relay = await startRelayServer();
});

afterAll(async () => {
  mongoProxy?.lag(0);
  await workers?.close(2_000);
  await workerRes?.close();
  await relay?.close();
  await app?.close();
  await mongoProxy?.close();
});

describe(`a worker whose database writes take ${LAG_MS} ms`, () => {
  it('pipemsg-status shows the wait after a relay 500 (queued) and a 429 (rate_limited), with retry_at, before the next try', async () => {
    const tries = new Map<string, number>();
    relay.handler = (body, res) => {
      const content = String(body.content);
      const n = (tries.get(content) ?? 0) + 1;
      tries.set(content, n);
      if (content === 'after 500' && n === 1)
        return answer(res, 500, { code: 50000, message: 'boom', data: {} });
      if (content === 'after 429' && n === 1) {
        return answer(res, 429, { code: 42900, message: 'slow down', data: {} }, { 'Retry-After': '1' });
      }
      return ok(res, `up-${String(body.nonce)}`);
    };
    const w = await createRelayWorld(app, relay.url, {
      name: 'lagging store bot',
      upstream_token: 'tok-lag',
    });
    const pipe = await createPipe(app, w);
    // Warm: the worker's caches hold what the checks read, so only the record writes wait.
    const warm = await sendPipe(app, pipe.token, { content: 'warm' });
    await expect
      .poll(async () => (await app.res.store.deliveries.get(warm))?.status, { timeout: 15_000 })
      .toBe('sent');
    mongoProxy.lag(LAG_MS);
    const status = (msgId: string) =>
      app
        .request<Record<string, unknown>>('GET', `/api/v3/message/pipemsg-status?msg_id=${msgId}`, {
          bot: w.bot.token,
        })
        .then((r) => r.body.data);
    for (const [content, waiting] of [
      [
        'after 500',
        { status: 'queued', attempts: 1, error: { reason: 'UPSTREAM_UNAVAILABLE', code: 50001 } },
      ],
      ['after 429', { status: 'rate_limited', attempts: 0, error: null }],
    ] as const) {
      const msgId = await sendPipe(app, pipe.token, { content });
      let seen: { at: number; data: Record<string, unknown> } | undefined;
      await expect
        .poll(
          async () => {
            const data = await status(msgId);
            if (data.status === 'sent') return `sent, its wait never shown`;
            if (data.retry_at === null) return `no wait shown: ${JSON.stringify(data)}`;
            seen = { at: Date.now(), data };
            return 'wait shown';
          },
          { timeout: 4 * LAG_MS, interval: 10 },
        )
        .toBe('wait shown');
      expect(seen?.data, content).toMatchObject(waiting);
      await expect
        .poll(async () => (await app.res.store.deliveries.get(msgId))?.status, { timeout: 6 * LAG_MS })
        .toBe('sent');
      // By the relay's clock: shown before the next try, which kept to the retry_at shown.
      const [first, second] = relay.requests.filter((r) => r.body.nonce === msgId).map((r) => r.at);
      const retryAt = seen?.data.retry_at as number;
      expect(seen?.at, content).toBeLessThan(second as number);
      expect(retryAt, content).toBeGreaterThan(first as number);
      expect(second as number, content).toBeGreaterThanOrEqual(retryAt - 20);
      expect((await app.res.store.deliveries.get(msgId)) as DeliveryRecord).toMatchObject({ status: 'sent' });
    }
  }, 90_000);
});
