import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listGallery } from '../../src/domain/gallery/index.js';
import { renderMessage } from '../../src/render/index.js';
import type { DeliveryDetail } from '../../src/store/index.js';
import { type RunningWorkers, startWorkers } from '../../src/workers/index.js';
import { senderRequest } from '../helpers/sender-requests.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { createPipe, createTemplate, createWorld, type World } from './helpers.js';

/**
 * Routed messages through the worker in this process, on the real Redis (BullMQ) and store: the
 * template the door chose is the one rendered, it sees `_event` and `_headers`, and the delivery
 * record names both.
 */
let app: TestApp;
let workers: RunningWorkers;
let w: World;

const gallery = await listGallery();

async function sent(msgId: string): Promise<DeliveryDetail> {
  await expect
    .poll(async () => (await app.res.store.deliveries.get(msgId))?.status, { timeout: 15_000, interval: 50 })
    .toMatch(/^(sent|failed)$/);
  return (await app.res.store.deliveries.detail(msgId)) as DeliveryDetail;
}

async function send(token: string, body: string, headers: Record<string, string>): Promise<string> {
  const r = await app.request<{ msg_id: string }>(
    'POST',
    `/api/v3/message/send-pipemsg?access_token=${encodeURIComponent(token)}`,
    { raw: body, headers },
  );
  if (r.status !== 200 || typeof r.body.data.msg_id !== 'string') throw new Error(`send failed: ${r.text}`);
  return r.body.data.msg_id;
}

beforeAll(async () => {
  app = await startTestApp('worker_routing', {
    METRICS_PORT: '0',
    WORKER_CONCURRENCY: '4',
    HOST: '127.0.0.1',
  });
  workers = await startWorkers(app.res, app.res.pipeRuntime.queue);
  w = await createWorld(app, { rate_capacity: 1000, rate_per_second: 1000 });
});
afterAll(async () => {
  await workers?.close(2_000);
  await app?.close();
});

describe('a routed message in the worker', () => {
  it("renders its event's template, as the gallery template renders the sample, and records event and template", async () => {
    const r = await app.request<{
      access_token: string;
      templates: Array<{ id: string; gallery_id: string }>;
    }>('POST', '/admin/api/pipe/create', {
      admin: true,
      json: {
        bot_id: w.bot.id,
        title: 'github',
        channel_id: w.channelId,
        preset: 'github',
        signature: 'none',
      },
    });
    expect(r.status, r.text).toBe(200);
    const { access_token, templates } = r.body.data;
    for (const galleryId of ['github-push', 'github-pull-request']) {
      const template = gallery.find((t) => t.id === galleryId)!;
      const sample = template.samples[0]!;
      const req = senderRequest(template, sample)!;
      const msgId = await send(access_token, req.body, req.headers);
      const record = await sent(msgId);
      expect(record.status, JSON.stringify(record)).toBe('sent');
      expect(record.event).toBe(req.event);
      expect(record.template_id).toBe(templates.find((t) => t.gallery_id === galleryId)!.id);
      const want = renderMessage(
        { content: template.content, msgtype: template.msgtype },
        JSON.parse(sample.data),
        {},
      );
      expect(record.rendered).toEqual({ type: want.type, content: want.content });
    }
  });

  it('gives the template _event and the allow-listed _headers; a pipe without routing gives neither', async () => {
    const content =
      "{{ _event ?? '-' }}|{{ _headers['x-event']|default('-') }}|{{ _headers['user-agent']|default('-') }}|" +
      "{{ _headers['x-hub-signature-256']|default('no signature') }}|{{ _headers|length }}|{{ data.x }}";
    const templateId = await createTemplate(app, w, content, 1);
    const routed = await createPipe(app, w, { template_id: templateId, event_source: { header: 'X-Event' } });
    const headers = {
      'Content-Type': 'application/json',
      'X-Event': 'deploy',
      'User-Agent': 'curl/8.5.0',
      'X-Hub-Signature-256': 'sha256=secret',
    };
    const a = await sent(await send(routed.token, '{"x":1}', headers));
    // X-Event is the pipe's event source, not an allow-listed header: it is seen as _event only.
    expect(a.rendered?.content).toBe('deploy|-|curl/8.5.0|no signature|2|1');
    expect(a.event).toBe('deploy');
    const noEvent = await sent(
      await send(routed.token, '{"x":2}', {
        'Content-Type': 'application/json',
        'User-Agent': 'Go-http-client/1.1',
      }),
    );
    expect(noEvent.rendered?.content).toBe('-|-|Go-http-client/1.1|no signature|2|2');
    expect(noEvent.event).toBeNull();
    const plain = await createPipe(app, w, { template_id: templateId });
    const b = await sent(await send(plain.token, '{"x":3}', headers));
    // PHP Twig reads the missing variables as null: the same text it would render.
    expect(b.rendered?.content).toBe('-|-|-|no signature|0|3');
    expect(b.event).toBeNull();
    expect(b.template_id).toBe(templateId);
  });

  it("renders a form-encoded GitHub body's payload", async () => {
    const templateId = await createTemplate(
      app,
      w,
      '{{ _event }}: {{ data.ref }} by {{ data.pusher.name }}',
      1,
    );
    const pipe = await createPipe(app, w, {
      event_source: { header: 'X-GitHub-Event' },
      routes: { push: templateId, ping: null },
    });
    const push = gallery.find((t) => t.id === 'github-push')!.samples[0]!.data;
    const parsed = JSON.parse(push) as { ref: string; pusher: { name: string } };
    const record = await sent(
      await send(pipe.token, `payload=${encodeURIComponent(push)}`, {
        'Content-Type': 'application/x-www-form-urlencoded',
        'X-GitHub-Event': 'push',
      }),
    );
    expect(record.rendered?.content).toBe(`push: ${parsed.ref} by ${parsed.pusher.name}`);
  });
});
