import { createHmac, sign as edSign, generateKeyPairSync, randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Capture } from '../../src/domain/pipes/captures.js';
import { PIPE_QUEUE, type PipeJob } from '../../src/queue/pipe-messages.js';
import { addTestMember, createTestChannel, createTestGuild } from '../helpers/directory.js';
import { createTestBot, startTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/test-app.js';

/*
 * Verified senders over HTTP on the real Redis and store (issue 20, docs/pipes.md "Verified
 * senders"): signed pipes take only signed requests; a refusal is 401 with its own code, queues
 * and captures nothing and is counted; secrets are shown once, sealed at rest, never logged.
 */

let app: TestApp;
let queue: Queue<PipeJob>;
let bot: { id: string };
let channelId: string;
const SECRETS_KEY = randomBytes(32).toString('hex');
/** Every secret these tests were shown: none may reach a log line. */
const shown: string[] = [];

interface Created {
  pipe: Record<string, unknown> & { id: string; signature: Record<string, unknown> };
  access_token: string;
  url: string;
  signing_secret?: string;
}
interface Accepted {
  msg_id: string;
}

async function createPipe(signature: unknown, on: TestApp = app): Promise<Created> {
  const r = await on.request<Created>('POST', '/admin/api/pipe/create', {
    admin: true,
    json: { bot_id: bot.id, title: 'signed', channel_id: channelId, signature },
  });
  if (r.status !== 200) throw new Error(`pipe create failed: ${r.text}`);
  if (r.body.data.signing_secret) shown.push(r.body.data.signing_secret);
  return r.body.data;
}

const send = (
  token: string,
  raw: string | Uint8Array,
  headers: Record<string, string> = {},
  on: TestApp = app,
) =>
  on.request<Accepted>('POST', `/api/v3/message/send-pipemsg?access_token=${encodeURIComponent(token)}`, {
    raw,
    headers: { 'Content-Type': 'application/json', 'Accept-Language': 'en-US', ...headers },
  });

const githubSignature = (secret: string, raw: string | Uint8Array) =>
  `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

function standardHeaders(secret: string, id: string, timestamp: number, raw: string) {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${raw}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}

const jobsOf = async (pipeId: string) =>
  (await queue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed'])).filter(
    (j) => j.data.pipe_id === pipeId,
  );

const capturesOf = async (pipeId: string) => {
  const r = await app.request<{ items: Capture[] }>('GET', `/admin/api/pipe/captures?id=${pipeId}`, {
    admin: true,
  });
  return r.body.data.items;
};

async function scrapeChecks(): Promise<Record<string, number>> {
  const text = await (
    await fetch(`${app.base}/metrics`, { headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })
  ).text();
  const counts: Record<string, number> = {};
  for (const m of text.matchAll(/^herald_pipe_signature_checks_total\{([^}]*)\} (\d+)$/gm)) {
    const labels = Object.fromEntries(
      [...(m[1] as string).matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]),
    );
    counts[`${labels.scheme}/${labels.outcome}`] = Number(m[2]);
  }
  return counts;
}

beforeAll(async () => {
  app = await startTestApp('pipe_signatures', { SECRETS_KEY });
  const url = new URL(app.config.redisUrl);
  queue = new Queue<PipeJob>(PIPE_QUEUE, {
    connection: { host: url.hostname, port: Number(url.port || 6379) },
    prefix: app.config.redisPrefix,
  });
  const created = await createTestBot(app);
  bot = { id: created.id };
  const guild = await createTestGuild(app);
  channelId = (await createTestChannel(app, guild.id)).id;
  await addTestMember(app, guild.id, created.bot.user_id as string);
});
afterAll(async () => {
  await queue?.close();
  await app?.close();
});

describe('github', () => {
  it('shows the secret once, keeps it sealed, and takes only requests signed with it', async () => {
    const { pipe, access_token, signing_secret } = await createPipe('github');
    const secret = signing_secret as string;
    expect(secret).toMatch(/^[\w-]{43}$/);
    expect(pipe.signature).toEqual({
      scheme: 'github',
      header: null,
      encoding: null,
      prefix: null,
      secrets: [{ created_at: expect.any(Number), expires_at: null }],
    });
    const view = await app.request('GET', `/admin/api/pipe/view?id=${pipe.id}`, { admin: true });
    const list = await app.request('GET', '/admin/api/pipe/list?page=1&page_size=50', { admin: true });
    for (const text of [view.text, list.text]) {
      expect(text).toContain('"scheme":"github"');
      expect(text).not.toContain(secret);
      expect(text).not.toContain('hsb1.');
    }
    // At rest: sealed, the secret's bytes nowhere in the record.
    const stored = await app.res.store.pipes.getWithTokenHash(pipe.id);
    const sealed = stored?.signature?.secrets[0]?.sealed as string;
    expect(sealed).toMatch(/^hsb1\./);
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(JSON.stringify(stored)).not.toContain(Buffer.from(secret).toString('base64url'));

    const raw = JSON.stringify({ content: 'Deploy of **api** finished', zh: '部署完成' });
    const before = await scrapeChecks();
    const ok = await send(access_token, raw, { 'X-Hub-Signature-256': githubSignature(secret, raw) });
    expect(ok.status, ok.text).toBe(200);
    expect((await jobsOf(pipe.id)).map((j) => j.id)).toEqual([ok.body.data.msg_id]);

    const refusals = [
      [{}, 40102, 'Signature required: this pipe accepts only requests signed in X-Hub-Signature-256'],
      [{ 'X-Hub-Signature-256': githubSignature(`${secret}x`, raw) }, 40103, undefined],
      [{ 'X-Hub-Signature-256': githubSignature(secret, `${raw} `) }, 40103, undefined],
      [{ 'X-Hub-Signature-256': githubSignature(secret, raw).replace('sha256=', '') }, 40103, undefined],
    ] as const;
    for (const [headers, code, message] of refusals) {
      const r = await send(access_token, raw, headers);
      expect([r.status, r.body.code]).toEqual([401, code]);
      if (message) expect(r.body.message).toBe(message);
      expect(r.body.data).toMatchObject({ scheme: 'github', header: 'X-Hub-Signature-256' });
    }
    // Nothing more queued, and only the accepted message captured.
    expect(await jobsOf(pipe.id)).toHaveLength(1);
    await expect
      .poll(async () => (await capturesOf(pipe.id)).map((c) => c.id))
      .toEqual([ok.body.data.msg_id]);
    const after = await scrapeChecks();
    expect((after['github/ok'] ?? 0) - (before['github/ok'] ?? 0)).toBe(1);
    expect((after['github/missing'] ?? 0) - (before['github/missing'] ?? 0)).toBe(1);
    expect((after['github/invalid'] ?? 0) - (before['github/invalid'] ?? 0)).toBe(3);
    // Refusals are logged with the pipe, scheme and outcome; never a header value.
    const refused = app.logs.filter((l) => l.msg === 'pipe signature refused' && l.pipe_id === pipe.id);
    expect(refused.map((l) => l.outcome)).toEqual(['missing', 'invalid', 'invalid', 'invalid']);
  });

  it('a valid signature does not replace the access token', async () => {
    const { signing_secret } = await createPipe('github');
    const raw = '{"content":"x"}';
    const r = await app.request('POST', '/api/v3/message/send-pipemsg', {
      raw,
      headers: {
        'Content-Type': 'application/json',
        'X-Hub-Signature-256': githubSignature(signing_secret!, raw),
      },
    });
    expect([r.status, r.body.code]).toEqual([401, 40100]);
  });

  it('verifies a gzip body over the bytes as sent, or over the JSON it carries', async () => {
    const { pipe, access_token, signing_secret } = await createPipe('github');
    const raw = JSON.stringify({ content: 'compressed and signed' });
    const gz = gzipSync(raw);
    const headers = { 'Content-Encoding': 'gzip' };
    const overWire = await send(access_token, gz, {
      ...headers,
      'X-Hub-Signature-256': githubSignature(signing_secret!, gz),
    });
    expect(overWire.status, overWire.text).toBe(200);
    const overJson = await send(access_token, gz, {
      ...headers,
      'X-Hub-Signature-256': githubSignature(signing_secret!, raw),
    });
    expect(overJson.status, overJson.text).toBe(200);
    const overOther = await send(access_token, gz, {
      ...headers,
      'X-Hub-Signature-256': githubSignature(signing_secret!, gzipSync('{"content":"other"}')),
    });
    expect([overOther.status, overOther.body.code]).toEqual([401, 40103]);
    expect(await jobsOf(pipe.id)).toHaveLength(2);
  });
});

describe('standard-webhooks', () => {
  it('answers a webhook-id seen before with the first msg_id and queues it once', async () => {
    const { pipe, access_token, signing_secret } = await createPipe({ scheme: 'standard-webhooks' });
    const secret = signing_secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const raw = JSON.stringify({ content: 'contact created' });
    const now = Math.floor(Date.now() / 1000);
    const first = await send(access_token, raw, standardHeaders(secret, 'msg_replay_1', now, raw));
    expect(first.status, first.text).toBe(200);
    // The same delivery again (a replay, or the sender's retry with a fresh timestamp).
    const again = await send(access_token, raw, standardHeaders(secret, 'msg_replay_1', now, raw));
    const retried = await send(access_token, raw, standardHeaders(secret, 'msg_replay_1', now + 5, raw));
    expect([again.status, again.body.data.msg_id]).toEqual([200, first.body.data.msg_id]);
    expect([retried.status, retried.body.data.msg_id]).toEqual([200, first.body.data.msg_id]);
    // Another webhook-id is another message, whatever Idempotency-Key says (it is not signed).
    const other = await send(access_token, raw, {
      ...standardHeaders(secret, 'msg_replay_2', now, raw),
      'Idempotency-Key': 'msg_replay_1',
    });
    expect(other.status, other.text).toBe(200);
    expect(other.body.data.msg_id).not.toBe(first.body.data.msg_id);
    expect((await jobsOf(pipe.id)).map((j) => j.id).sort()).toEqual(
      [first.body.data.msg_id, other.body.data.msg_id].sort(),
    );
    await expect.poll(async () => (await capturesOf(pipe.id)).length).toBe(2);
  });

  it('refuses a timestamp out of tolerance (40104), a forged or missing signature, and queues nothing', async () => {
    const { pipe, access_token, signing_secret } = await createPipe('standard-webhooks');
    const secret = signing_secret as string;
    const raw = '{"content":"late"}';
    const now = Math.floor(Date.now() / 1000);
    for (const [headers, code] of [
      [standardHeaders(secret, 'msg_old', now - 3600, raw), 40104],
      [standardHeaders(secret, 'msg_future', now + 3600, raw), 40104],
      [standardHeaders(`whsec_${randomBytes(32).toString('base64')}`, 'msg_forged', now, raw), 40103],
      [{ 'webhook-id': 'msg_1', 'webhook-timestamp': String(now) }, 40102],
    ] as const) {
      const r = await send(access_token, raw, headers);
      expect([r.status, r.body.code]).toEqual([401, code]);
    }
    // A missing header is named as the one left out, not as webhook-signature when that was sent.
    const signedHeaders = standardHeaders(secret, 'msg_2', now, raw);
    for (const left of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { [left]: _gone, ...rest } = signedHeaders;
      const r = await send(access_token, raw, rest);
      expect([r.status, r.body.code, (r.body.data as { header?: string } | null)?.header]).toEqual([
        401,
        40102,
        left,
      ]);
    }
    const expired = await send(access_token, raw, standardHeaders(secret, 'msg_old2', now - 3600, raw));
    expect(expired.body.message).toBe(
      "Signature out of date: webhook-timestamp is more than 300 s away from the server's clock",
    );
    expect(await jobsOf(pipe.id)).toHaveLength(0);
    expect(await capturesOf(pipe.id)).toHaveLength(0);
  });
});

describe('gitlab and hmac-sha256', () => {
  it('gitlab: the X-Gitlab-Token, stored as its hash only', async () => {
    const { pipe, access_token, signing_secret } = await createPipe('gitlab');
    const token = signing_secret as string;
    const stored = await app.res.store.pipes.getWithTokenHash(pipe.id);
    expect(stored?.signature?.secrets[0]).toMatchObject({
      sealed: null,
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const raw = '{"content":"push"}';
    expect((await send(access_token, raw, { 'X-Gitlab-Token': token })).status).toBe(200);
    const wrong = await send(access_token, raw, { 'X-Gitlab-Token': `${token}x` });
    expect([wrong.status, wrong.body.code]).toEqual([401, 40103]);
    expect(wrong.body.message).toBe(
      "Invalid signature: X-Gitlab-Token does not verify with the pipe's signing secret",
    );
  });

  it('hmac-sha256: the operator sets the secret, header, encoding and prefix', async () => {
    const secret = 'operator-chosen-secret-0123';
    const { pipe, access_token, signing_secret } = await createPipe({
      scheme: 'hmac-sha256',
      secret,
      header: 'X-Acme-Signature',
      encoding: 'base64',
      prefix: 'sha256=',
    });
    expect(signing_secret).toBe(secret);
    expect(pipe.signature).toMatchObject({
      header: 'x-acme-signature',
      encoding: 'base64',
      prefix: 'sha256=',
    });
    const raw = '{"content":"acme"}';
    const b64 = createHmac('sha256', secret).update(raw).digest('base64');
    expect((await send(access_token, raw, { 'X-Acme-Signature': `sha256=${b64}` })).status).toBe(200);
    const hex = createHmac('sha256', secret).update(raw).digest('hex');
    const wrongEncoding = await send(access_token, raw, { 'X-Acme-Signature': `sha256=${hex}` });
    const wrongHeader = await send(access_token, raw, { 'X-Signature': `sha256=${b64}` });
    expect([wrongEncoding.body.code, wrongHeader.body.code]).toEqual([40103, 40102]);
  });
});

describe('changing and rotating', () => {
  it('rotation: old and new verify inside the overlap, only the new one after it', async () => {
    const { pipe, access_token, signing_secret } = await createPipe('github');
    const old = signing_secret as string;
    const r = await app.request<{
      signing_secret: string;
      previous_expires_at: number;
      pipe: Created['pipe'];
    }>('POST', '/admin/api/pipe/rotate-signing-secret', { admin: true, json: { id: pipe.id, overlap_s: 2 } });
    expect(r.status, r.text).toBe(200);
    const fresh = r.body.data.signing_secret;
    shown.push(fresh);
    expect(fresh).not.toBe(old);
    expect(r.body.data.pipe.signature.secrets).toEqual([
      { created_at: expect.any(Number), expires_at: null },
      { created_at: expect.any(Number), expires_at: r.body.data.previous_expires_at },
    ]);
    const raw = '{"content":"rotating"}';
    const with_ = (secret: string) =>
      send(access_token, raw, { 'X-Hub-Signature-256': githubSignature(secret, raw) });
    expect((await with_(old)).status).toBe(200);
    expect((await with_(fresh)).status).toBe(200);
    // After the window (the clock is read per request: no change needs announcing).
    await expect
      .poll(async () => (await with_(old)).body.code, { timeout: 10_000, interval: 200 })
      .toBe(40103);
    expect((await with_(fresh)).status).toBe(200);
    // overlap_s 0: the old secret stops at once; an operator's secret may be given.
    const mine = 'my-own-rotated-secret-0123';
    const now = await app.request<{ signing_secret: string; previous_expires_at: null }>(
      'POST',
      '/admin/api/pipe/rotate-signing-secret',
      { admin: true, json: { id: pipe.id, overlap_s: 0, secret: mine } },
    );
    expect(now.body.data).toMatchObject({ signing_secret: mine, previous_expires_at: null });
    expect((await with_(fresh)).body.code).toBe(40103);
    expect((await with_(mine)).status).toBe(200);
  });

  it('set-signature: same scheme keeps the secret, another makes one, none turns it off', async () => {
    const { pipe, access_token, signing_secret } = await createPipe({
      scheme: 'hmac-sha256',
      header: 'x-sig',
    });
    const set = (signature: unknown) =>
      app.request<{ pipe: Created['pipe']; signing_secret?: string }>(
        'POST',
        '/admin/api/pipe/set-signature',
        {
          admin: true,
          json: { id: pipe.id, signature },
        },
      );
    const kept = await set({ scheme: 'hmac-sha256', header: 'x-sig-2', encoding: 'base64' });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body.data.signing_secret).toBeUndefined();
    const raw = '{"content":"x"}';
    const b64 = createHmac('sha256', signing_secret!).update(raw).digest('base64');
    expect((await send(access_token, raw, { 'x-sig-2': b64 })).status).toBe(200);

    const changed = await set('gitlab');
    shown.push(changed.body.data.signing_secret as string);
    expect(changed.body.data.pipe.signature.scheme).toBe('gitlab');
    expect((await send(access_token, raw, { 'x-sig-2': b64 })).body.code).toBe(40102);
    expect(
      (await send(access_token, raw, { 'X-Gitlab-Token': changed.body.data.signing_secret! })).status,
    ).toBe(200);

    const off = await set('none');
    expect(off.body.data.pipe.signature).toEqual({
      scheme: 'none',
      header: null,
      encoding: null,
      prefix: null,
      secrets: [],
    });
    expect((await send(access_token, raw)).status).toBe(200);
    const notSigned = await app.request('POST', '/admin/api/pipe/rotate-signing-secret', {
      admin: true,
      json: { id: pipe.id },
    });
    expect([notSigned.status, notSigned.body.code]).toEqual([409, 40913]);
    const bad = await set({ scheme: 'sha1' });
    expect([bad.status, bad.body.code]).toEqual([400, 40000]);
    // pipe/update does not take it (its answer could not show a new secret), nor ignores it.
    const update = await app.request('POST', '/admin/api/pipe/update', {
      admin: true,
      json: { id: pipe.id, signature: 'github' },
    });
    expect([update.status, update.body.data]).toEqual([400, { field: 'signature' }]);
  });
});

describe('an event source and the signature header', () => {
  it('may not be the same header (its value would be kept with the message): 400 either way round', async () => {
    const t = await app.request<{ model: { id: string } }>('POST', '/admin/api/template/create', {
      admin: true,
      json: { bot_id: bot.id, title: 'any', content: 'x' },
    });
    const routed = { template_id: t.body.data.model.id, event_source: { header: 'X-Signed-By' } };
    const both = await app.request('POST', '/admin/api/pipe/create', {
      admin: true,
      json: {
        bot_id: bot.id,
        title: 'same header',
        channel_id: channelId,
        ...routed,
        signature: { scheme: 'hmac-sha256', header: 'x-signed-by', encoding: 'hex' },
      },
    });
    expect([both.status, both.body.code, both.body.data]).toEqual([400, 40000, { field: 'event_source' }]);
    const pipe = await app.request<Created>('POST', '/admin/api/pipe/create', {
      admin: true,
      json: { bot_id: bot.id, title: 'routed', channel_id: channelId, ...routed },
    });
    expect(pipe.status, pipe.text).toBe(200);
    const later = await app.request('POST', '/admin/api/pipe/set-signature', {
      admin: true,
      json: {
        id: pipe.body.data.pipe.id,
        signature: { scheme: 'hmac-sha256', header: 'X-Signed-By', encoding: 'hex' },
      },
    });
    expect([later.status, later.body.data]).toEqual([400, { field: 'signature' }]);
  });
});

describe('presets', () => {
  it("github's sets its signature: an unsigned ping is refused, a signed one answered and not posted", async () => {
    const r = await app.request<Created & { templates: unknown[] }>('POST', '/admin/api/pipe/create', {
      admin: true,
      json: { bot_id: bot.id, title: 'repo', channel_id: channelId, preset: 'github' },
    });
    expect(r.status, r.text).toBe(200);
    const { pipe, access_token, signing_secret } = r.body.data;
    expect(pipe.signature).toMatchObject({ scheme: 'github' });
    expect(signing_secret).toEqual(expect.any(String));
    shown.push(signing_secret!);
    const raw = '{"zen":"Keep it logically awesome.","hook_id":1}';
    const unsigned = await send(access_token, raw, { 'X-GitHub-Event': 'ping' });
    expect([unsigned.status, unsigned.body.code]).toEqual([401, 40102]);
    const signed = await send(access_token, raw, {
      'X-GitHub-Event': 'ping',
      'X-Hub-Signature-256': githubSignature(signing_secret!, raw),
    });
    expect([signed.status, signed.body.data]).toMatchObject([200, { skipped: true, event: 'ping' }]);
    expect(await jobsOf(pipe.id)).toEqual([]);
  });

  it("a preset's signature can be named instead (none), and without SECRETS_KEY github's is refused with nothing left", async () => {
    const unsigned = await app.request<Created>('POST', '/admin/api/pipe/create', {
      admin: true,
      json: { bot_id: bot.id, title: 'open', channel_id: channelId, preset: 'github', signature: 'none' },
    });
    expect([unsigned.status, unsigned.body.data.pipe.signature]).toMatchObject([200, { scheme: 'none' }]);
    const keyless = await startTestApp('pipe_signatures', { SECRETS_KEY: '' }, { sharedWith: app });
    try {
      const before = await keyless.request<{ meta: { total: number } }>(
        'GET',
        `/admin/api/template/list?bot_id=${bot.id}`,
        { admin: true },
      );
      const r = await keyless.request('POST', '/admin/api/pipe/create', {
        admin: true,
        json: { bot_id: bot.id, title: 'repo', channel_id: channelId, preset: 'github' },
      });
      expect([r.status, r.body.code]).toEqual([409, 40912]);
      const after = await keyless.request<{ meta: { total: number } }>(
        'GET',
        `/admin/api/template/list?bot_id=${bot.id}`,
        { admin: true },
      );
      expect(after.body.data.meta.total).toBe(before.body.data.meta.total);
    } finally {
      await keyless.close();
    }
  });
});

describe('without SECRETS_KEY', () => {
  it('refuses to keep an HMAC secret (409), takes a GitLab token, and a sealed pipe answers 503', async () => {
    const keyless = await startTestApp('pipe_signatures', { SECRETS_KEY: '' }, { sharedWith: app });
    try {
      const r = await keyless.request('POST', '/admin/api/pipe/create', {
        admin: true,
        json: { bot_id: bot.id, title: 't', channel_id: channelId, signature: 'github' },
      });
      expect([r.status, r.body.code]).toEqual([409, 40912]);
      const gitlab = await createPipe('gitlab', keyless);
      expect(
        (
          await send(
            gitlab.access_token,
            '{"content":"x"}',
            { 'X-Gitlab-Token': gitlab.signing_secret! },
            keyless,
          )
        ).status,
      ).toBe(200);
      // A pipe sealed by the process that has the key cannot be verified by one without it.
      const sealed = await createPipe('github');
      const raw = '{"content":"x"}';
      const r2 = await send(
        sealed.access_token,
        raw,
        { 'X-Hub-Signature-256': githubSignature(sealed.signing_secret!, raw) },
        keyless,
      );
      expect([r2.status, r2.body.code]).toEqual([503, 50302]);
      expect(keyless.logText()).toContain('neither SECRETS_KEY nor a previous key');
      for (const secret of shown) expect(keyless.logText()).not.toContain(secret);
    } finally {
      await keyless.close();
    }
  });
});

describe('re-sealing after a SECRETS_KEY change', () => {
  interface Report {
    pipes_checked: number;
    pipes_resealed: number;
    secrets_resealed: number;
    unreadable: string[];
  }
  const reseal = (on: TestApp) =>
    on.request<Report>('POST', '/admin/api/pipe/reseal-secrets', { admin: true });
  const signedPost = (pipe: Created, secret: string, on: TestApp) => {
    const raw = '{"content":"resealed"}';
    return send(pipe.access_token, raw, { 'X-Hub-Signature-256': githubSignature(secret, raw) }, on);
  };

  it('seals every secret anew under the new key, so the old key can go; again is a no-op', async () => {
    const newKey = randomBytes(32).toString('hex');
    const strangerKey = randomBytes(32).toString('hex');
    // Two secrets live on one pipe (a rotation's overlap): both are sealed anew.
    const rotating = await createPipe('github');
    const rotated = await app.request<{ signing_secret: string }>(
      'POST',
      '/admin/api/pipe/rotate-signing-secret',
      {
        admin: true,
        json: { id: rotating.pipe.id, overlap_s: 3600 },
      },
    );
    shown.push(rotated.body.data.signing_secret);
    const plain = await createPipe('github');
    // A pipe sealed under a key neither process knows: reported, left as it is.
    const stranger = await startTestApp('pipe_signatures', { SECRETS_KEY: strangerKey }, { sharedWith: app });
    const lost = await createPipe('github', stranger);
    await stranger.close();

    const moving = await startTestApp(
      'pipe_signatures',
      { SECRETS_KEY: newKey, SECRETS_KEYS_PREVIOUS: SECRETS_KEY },
      { sharedWith: app },
    );
    const keyless = await startTestApp('pipe_signatures', { SECRETS_KEY: '' }, { sharedWith: app });
    let after: TestApp | undefined;
    try {
      const refused = await reseal(keyless);
      expect([refused.status, refused.body.code]).toEqual([409, 40914]);

      const first = await reseal(moving);
      expect(first.status).toBe(200);
      const report = first.body.data;
      expect(report.unreadable).toEqual([lost.pipe.id]);
      // Every pipe sealed under the old key, this file's earlier ones too, was sealed anew.
      expect(report.pipes_resealed).toBe(report.pipes_checked - 1);
      expect(report.pipes_resealed).toBeGreaterThanOrEqual(2);
      expect(report.secrets_resealed).toBeGreaterThanOrEqual(report.pipes_resealed + 1);
      const again = await reseal(moving);
      expect(again.body.data).toMatchObject({
        pipes_checked: report.pipes_checked,
        pipes_resealed: 0,
        secrets_resealed: 0,
      });

      // Without the old key, every re-sealed secret still verifies, both of the rotating pipe's.
      after = await startTestApp('pipe_signatures', { SECRETS_KEY: newKey }, { sharedWith: app });
      for (const [pipe, secret] of [
        [plain, plain.signing_secret!],
        [rotating, rotating.signing_secret!],
        [rotating, rotated.body.data.signing_secret],
      ] as const) {
        const r = await signedPost(pipe, secret, after);
        expect([r.status, r.body.code]).toEqual([200, 0]);
      }
      const wrong = await signedPost(plain, 'not-the-secret-at-all', after);
      expect([wrong.status, wrong.body.code]).toEqual([401, 40103]);
      for (const on of [moving, after, keyless]) {
        for (const secret of shown) expect(on.logText()).not.toContain(secret);
      }
    } finally {
      await Promise.all([moving.close(), keyless.close(), after?.close()]);
    }
  });
});

describe("standard-webhooks v1a: the sender's ed25519 public key", () => {
  it('takes a whpk_ key without SECRETS_KEY, verifies v1a signatures, and answers a repeated webhook-id once', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const whpk = `whpk_${Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url').toString('base64')}`;
    const keyless = await startTestApp('pipe_signatures', { SECRETS_KEY: '' }, { sharedWith: app });
    try {
      const made = await createPipe({ scheme: 'standard-webhooks', secret: whpk }, keyless);
      expect(made.pipe.signature).toMatchObject({
        scheme: 'standard-webhooks',
        secrets: [{ expires_at: null }],
      });
      const raw = '{"content":"invoice paid"}';
      const now = Math.floor(Date.now() / 1000);
      const signed = (id: string, key = privateKey) => ({
        'webhook-id': id,
        'webhook-timestamp': String(now),
        'webhook-signature': `v1a,${edSign(null, Buffer.from(`${id}.${now}.${raw}`), key).toString('base64')}`,
      });
      const first = await send(made.access_token, raw, signed('msg_v1a_1'), keyless);
      expect([first.status, first.body.code], first.text).toEqual([200, 0]);
      const again = await send(made.access_token, raw, signed('msg_v1a_1'), keyless);
      expect(again.body.data.msg_id).toBe(first.body.data.msg_id);
      const forged = await send(
        made.access_token,
        raw,
        signed('msg_v1a_2', generateKeyPairSync('ed25519').privateKey),
        keyless,
      );
      expect([forged.status, forged.body.code]).toEqual([401, 40103]);
      expect((await jobsOf(made.pipe.id)).length).toBe(1);
    } finally {
      await keyless.close();
    }
  });
});

describe('logs', () => {
  it('hold no secret the tests were shown, and no signature header value', () => {
    expect(shown.length).toBeGreaterThan(5);
    const text = app.logText();
    for (const secret of shown) expect(text).not.toContain(secret);
    expect(text).not.toContain('sha256=');
    expect(text).not.toContain('v1,');
    expect(text).toContain('pipe signature refused');
  });
});
