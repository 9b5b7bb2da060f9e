import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/test-app.js';

/** GET /metrics on the web port takes the operators' token (src/api/routes/metrics.ts). */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp('metrics');
});
afterAll(() => app?.close());

const scrape = (authorization?: string) =>
  fetch(`${app.base}/metrics`, {
    headers: { 'Accept-Language': 'en-US', ...(authorization ? { Authorization: authorization } : {}) },
  });

describe('GET /metrics', () => {
  it('401 in the envelope without the operators token, and with any other', async () => {
    for (const [authorization, code] of [
      [undefined, 40100],
      ['Bearer not-the-admin-token', 40101],
      [`Bearer ${TEST_ADMIN_TOKEN}x`, 40101],
      [`Bot ${TEST_ADMIN_TOKEN}`, 40100],
    ] as const) {
      const r = await scrape(authorization);
      const text = await r.text();
      expect([authorization, r.status, JSON.parse(text).code]).toEqual([authorization, 401, code]);
      expect(text).not.toContain('herald_');
    }
  });

  it('serves the Prometheus text with the operators token', async () => {
    const r = await scrape(`Bearer ${TEST_ADMIN_TOKEN}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await r.text()).toMatch(/^# HELP herald_pipe_messages_accepted_total/m);
  });
});
