import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWorkers, startWorkers } from '../../../src/workers/index.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import {
  answer,
  createPipe,
  createRelayWorld,
  longText,
  ok,
  type RelayServer,
  sendPipe,
  startRelayServer,
} from '../helpers.js';

/*
 * A split message whose part 2 meets a gateway 504 with DELIVERY_IN_DOUBT=hold is IN_DOUBT with
 * the relay's own "HTTP 504: ..." text as its detail: the part Herald names around it is worded
 * in the reader's language.
 */
const SETTINGS = { DELIVERY_IN_DOUBT: 'hold', RELAY_TIMEOUT_MS: '1500' };
let app: TestApp;
let relay: RelayServer;
let workers: RunningWorkers | undefined;

beforeAll(async () => {
  app = await startTestApp('in_doubt_wording', SETTINGS);
  relay = await startRelayServer();
});
afterAll(async () => {
  await workers?.close(2_000);
  await relay?.close();
  await app?.close();
});

describe('IN_DOUBT on part 2 after a gateway 504', () => {
  it('words the part in the reader language', async () => {
    relay.handler = (body, res) => {
      if (String(body.nonce).endsWith('.2')) answer(res, 504, { code: 504, message: 'gateway timeout' });
      else ok(res, `up-${String(body.nonce)}`);
    };
    const w = await createRelayWorld(app, relay.url, {
      name: 'in-doubt wording bot',
      upstream_token: 'tok-in-doubt-wording',
      rate_capacity: 100,
      rate_per_second: 100,
    });
    const pipe = await createPipe(app, w);
    workers = await startWorkers(app.res, app.res.pipeRuntime.queue);
    const msgId = await sendPipe(app, pipe.token, { content: longText(20) });
    await expect
      .poll(async () => (await app.res.store.deliveries.get(msgId))?.status, {
        timeout: 20_000,
        interval: 100,
      })
      .toBe('failed');
    const status = await app.request<{ error: { reason: string; message: string } }>(
      'GET',
      `/api/v3/message/pipemsg-status?msg_id=${msgId}`,
      { headers: { Authorization: `Pipe ${pipe.token}` } },
    );
    expect(status.body.data.error.reason).toBe('IN_DOUBT');
    const zh = status.body.data.error.message;
    expect(zh).toContain('HTTP 504: gateway timeout');
    expect(zh).not.toContain('(part 2)');
    expect(zh).toContain('第 2 部分');
    const en = await app.request<{ error: { message: string } }>(
      'GET',
      `/api/v3/message/pipemsg-status?msg_id=${msgId}`,
      { headers: { Authorization: `Pipe ${pipe.token}`, 'Accept-Language': 'en-US' } },
    );
    expect(en.body.data.error.message).toContain('HTTP 504: gateway timeout (part 2)');
  }, 60_000);
});
