import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it, onTestFailed } from 'vitest';
import {
  expectSecurePage,
  openPage,
  type SeededPipe,
  type Stack,
  screenshot,
  seedPipe,
  signedIn,
  useStack,
} from './stack.js';

/*
 * "Connect a sender" (issue 20) on a real web and worker: GitHub connected from the console, its
 * secret shown once, then GitHub's own signed `push` (HMAC-SHA256 of the raw body, as GitHub
 * computes it) posted to the shown URL and sent; an unsigned one refused with 401. The web
 * process has a SECRETS_KEY, which GitHub's scheme needs to keep its secret.
 */
let stack: Stack;
let browser: Browser;
let seeded: SeededPipe;
useStack(
  'browser_connect',
  async (s, b) => {
    [stack, browser] = [s, b];
    seeded = await seedPipe(stack, { bot: 'Hook Bot', guild: 'Octo', channel: 'commits', pipe: 'Plain' });
  },
  { SECRETS_KEY: randomBytes(32).toString('hex') },
);

const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name, exact: true }).click();

/** The text of the description beside a term of the pipe's facts. */
const fact = (page: Page, term: string) => page.locator(`dl.facts dt:text-is("${term}") + dd`);

async function post(
  url: string,
  raw: string,
  headers: Record<string, string>,
): Promise<{ status: number; code: number; data: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: raw,
  });
  const envelope = (await res.json()) as { code: number; data: Record<string, unknown> };
  return { status: res.status, code: envelope.code, data: envelope.data };
}

describe('connect a sender', () => {
  it('connects GitHub: the secret shown once signs a push that is sent; an unsigned one is refused', async () => {
    const opened = await openPage(browser, { height: 1000 });
    const { context, page } = opened;
    onTestFailed(() => screenshot(page, 'connect-failed').then(() => undefined));
    await signedIn(page, stack);
    await nav(page, 'Connect a sender');
    await page.getByRole('heading', { name: 'Connect a sender', level: 1 }).waitFor();

    await page.getByRole('combobox', { name: 'Sender' }).selectOption({ label: 'GitHub' });
    await page.getByRole('combobox', { name: 'Bot' }).selectOption({ label: 'Hook Bot' });
    await page.getByRole('combobox', { name: 'Channel' }).selectOption({ label: '#commits' });
    // Picking the channel suggests a title; the operator names the repository instead.
    await expect.poll(() => page.getByLabel('Title').inputValue()).toBe('GitHub → #commits');
    await page.getByLabel('Title').fill('octo-org/herald');
    await screenshot(page, 'connect-form');
    await page.getByRole('button', { name: 'Create the pipe' }).click();

    await page.getByRole('heading', { name: 'Created the pipe "octo-org/herald"' }).waitFor();
    await page.getByText('Settings → Webhooks → Add webhook', { exact: false }).waitFor();
    const url = await page.getByLabel('Payload URL').inputValue();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v3\/message\/send-pipemsg\?access_token=hrp_/);
    const secret = await page.getByLabel('Secret', { exact: true }).inputValue();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url).not.toContain(secret);
    const pipeToken = new URL(url).searchParams.get('access_token') ?? '';
    const issued = page.getByRole('region', { name: 'Created the pipe "octo-org/herald"' });
    expect(await issued.textContent()).toContain('application/json');
    for (const event of ['Pushes', 'Pull requests', 'Issues', 'Releases', 'Workflow runs']) {
      await issued.getByRole('listitem').filter({ hasText: event }).first().waitFor();
    }
    await issued.getByText('Answered, not posted:').waitFor();
    await screenshot(page, 'connect-github');

    // GitHub's push, signed as GitHub signs it: HMAC-SHA256 of the raw body with the secret.
    const raw = readFileSync(
      new URL('../../src/gallery/samples/github-push/branch.json', import.meta.url),
      'utf8',
    );
    const signature = `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
    const signed = await post(url, raw, { 'X-GitHub-Event': 'push', 'X-Hub-Signature-256': signature });
    expect(signed.status).toBe(200);
    expect(signed.code).toBe(0);
    const msgId = String(signed.data.msg_id);
    expect(msgId).toMatch(/^[0-9a-f-]{36}$/);

    // Unsigned, or signed with another secret: refused, nothing queued.
    const unsigned = await post(url, raw, { 'X-GitHub-Event': 'push' });
    expect([unsigned.status, unsigned.code]).toEqual([401, 40102]);
    const forged = `sha256=${createHmac('sha256', 'not-the-secret').update(raw).digest('hex')}`;
    const bad = await post(url, raw, { 'X-GitHub-Event': 'push', 'X-Hub-Signature-256': forged });
    expect([bad.status, bad.code]).toEqual([401, 40103]);

    // The pipe's page: its scheme (not its secret), preset, event source and routes; the push sent.
    await page.getByRole('link', { name: "Open the pipe's page" }).click();
    await page.getByRole('heading', { name: 'octo-org/herald', level: 1 }).waitFor();
    await expect.poll(() => fact(page, 'Signature').textContent()).toBe('github, header X-Hub-Signature-256');
    expect(await fact(page, 'Preset').textContent()).toBe('github');
    expect(await fact(page, 'Event source').textContent()).toBe('header x-github-event');
    const routes = fact(page, 'Routes');
    await routes.getByRole('link', { name: 'GitHub push', exact: true }).waitFor();
    expect(await routes.getByRole('listitem').filter({ hasText: 'ping' }).textContent()).toBe(
      'ping → answered, not posted',
    );
    const row = page
      .getByRole('table', { name: "This pipe's latest deliveries" })
      .getByRole('row')
      .filter({ hasText: msgId });
    await expect.poll(() => row.getByRole('cell').nth(1).textContent(), { timeout: 30_000 }).toBe('Sent');
    // Only the signed push got through.
    expect(
      await page.getByRole('table', { name: "This pipe's latest deliveries" }).getByRole('row').count(),
    ).toBe(2);
    expect(await page.content()).not.toContain(secret);
    await screenshot(page, 'connect-pipe');

    await expectSecurePage(opened, [stack.adminToken, seeded.botToken, pipeToken, secret]);
    expect(stack.logs()).not.toContain(secret);

    // Rotation with the default overlap (24 h): the new secret is shown once, both verify.
    const panel = page.getByRole('region', { name: 'Sender signature' });
    expect(
      await panel.getByRole('combobox', { name: 'The old secret keeps verifying for' }).inputValue(),
    ).toBe('day');
    await panel.getByRole('button', { name: 'Rotate the secret' }).click();
    const rotateDialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await rotateDialog.getByRole('button', { name: 'Rotate the secret' }).click();
    const newSecret = await panel.getByLabel('New signing secret').inputValue();
    expect(newSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newSecret).not.toBe(secret);
    expect(page.url()).not.toContain(newSecret);
    await expect.poll(() => fact(page, 'Signature').textContent()).toContain('(2 live secrets)');
    await panel.getByText('The previous secret stops verifying at', { exact: false }).waitFor();
    await screenshot(page, 'connect-rotated');
    const sign = (key: string) => `sha256=${createHmac('sha256', key).update(raw).digest('hex')}`;
    const withOld = await post(url, raw, { 'X-GitHub-Event': 'push', 'X-Hub-Signature-256': sign(secret) });
    expect([withOld.status, withOld.code]).toEqual([200, 0]);
    const withNew = await post(url, raw, {
      'X-GitHub-Event': 'push',
      'X-Hub-Signature-256': sign(newSecret),
    });
    expect([withNew.status, withNew.code]).toEqual([200, 0]);

    // Leaving the page forgets the new secret.
    await nav(page, 'Pipes');
    await page.getByRole('link', { name: 'octo-org/herald' }).click();
    await page.getByRole('heading', { name: 'octo-org/herald', level: 1 }).waitFor();
    await panel.getByRole('combobox', { name: 'Scheme' }).waitFor();
    expect(await panel.getByLabel('New signing secret').count()).toBe(0);
    expect(await page.content()).not.toContain(newSecret);

    // No scheme: the confirm says senders must be updated; then an unsigned post is accepted.
    await panel.getByRole('combobox', { name: 'Scheme' }).selectOption('none');
    await panel.getByRole('button', { name: 'Change the scheme' }).click();
    const changeDialog = page.getByRole('dialog', { name: "Change this pipe's signature scheme?" });
    await changeDialog.getByText('every sender must be updated', { exact: false }).waitFor();
    await changeDialog.getByRole('button', { name: 'Change the scheme' }).click();
    await panel.getByText('Signature scheme changed.').waitFor();
    await expect
      .poll(() => fact(page, 'Signature').textContent())
      .toBe('Not checked (the token in the URL is the credential)');
    const open = await post(url, raw, { 'X-GitHub-Event': 'push' });
    expect([open.status, open.code]).toEqual([200, 0]);
    // Without a scheme there is nothing to rotate: the server's 40913, in the panel's words.
    await panel.getByRole('button', { name: 'Rotate the secret' }).click();
    await rotateDialog.getByRole('button', { name: 'Rotate the secret' }).click();
    await panel
      .locator('.notice.warn', { hasText: 'there is no secret to rotate: choose a scheme first' })
      .waitFor();
    expect(stack.logs()).not.toContain(newSecret);
    await context.close();
  }, 180_000);

  it('connects Sentry with its own secret: a post signed with it in Sentry-Hook-Signature is accepted', async () => {
    const opened = await openPage(browser);
    const { context, page } = opened;
    onTestFailed(() => screenshot(page, 'connect-sentry-failed').then(() => undefined));
    await signedIn(page, stack);
    await nav(page, 'Connect a sender');
    await page.getByRole('combobox', { name: 'Sender' }).selectOption({ label: 'Sentry' });
    await page.getByRole('combobox', { name: 'Bot' }).selectOption({ label: 'Hook Bot' });
    await page.getByRole('combobox', { name: 'Channel' }).selectOption({ label: '#commits' });
    await page.getByLabel('Title').fill('sentry');
    // Sentry's client secret, as the operator copies it from the integration.
    const clientSecret = randomBytes(32).toString('hex');
    await page.getByRole('checkbox', { name: /own secret/ }).check();
    await page.getByLabel(/^Secret/).fill(clientSecret);
    expect(await page.getByLabel(/^Signature header/).inputValue()).toBe('Sentry-Hook-Signature');
    await page.getByRole('button', { name: 'Create the pipe' }).click();
    await page.getByRole('heading', { name: 'Created the pipe "sentry"' }).waitFor();
    await page.getByText('internal integration', { exact: false }).waitFor();
    // The operator's own secret is not shown back (the server keeps header names lower-case).
    await page
      .getByText('checked with the secret you gave (header sentry-hook-signature)', { exact: false })
      .waitFor();
    expect(await page.getByLabel('Secret', { exact: true }).count()).toBe(0);
    expect(await page.content()).not.toContain(clientSecret);
    const url = await page.getByLabel('Payload URL').inputValue();

    const raw = readFileSync(
      new URL('../../src/gallery/samples/sentry-issue-alert/triggered.json', import.meta.url),
      'utf8',
    );
    const hook = { 'Sentry-Hook-Resource': 'event_alert' };
    const sig = createHmac('sha256', clientSecret).update(raw).digest('hex');
    const signed = await post(url, raw, { ...hook, 'Sentry-Hook-Signature': sig });
    expect([signed.status, signed.code]).toEqual([200, 0]);
    expect(String(signed.data.msg_id)).toMatch(/^[0-9a-f-]{36}$/);
    const unsigned = await post(url, raw, hook);
    expect([unsigned.status, unsigned.code]).toEqual([401, 40102]);

    await page.getByRole('link', { name: "Open the pipe's page" }).click();
    await expect
      .poll(() => fact(page, 'Signature').textContent())
      .toBe('hmac-sha256, header sentry-hook-signature, hex encoded');
    expect(await fact(page, 'Event source').textContent()).toBe('header sentry-hook-resource');
    await expectSecurePage(opened, [stack.adminToken, clientSecret]);
    expect(stack.logs()).not.toContain(clientSecret);
    await context.close();
  }, 120_000);

  it("edits a pipe's routing on its page: a header source, a route, an answer-only event, then off again", async () => {
    const made = (title: string, content: string) =>
      stack.admin<{ model: { id: string } }>('POST', '/admin/api/template/create', {
        bot_id: seeded.bot.id,
        title,
        content,
      });
    const deploy = await made('Deploy note', 'Deployed {{ data.version|kmd_escape }} ({{ _event }})');
    const other = await made('Anything else', 'Got {{ _event|default("an event") }}');
    const opened = await openPage(browser, { height: 1200 });
    const { context, page } = opened;
    onTestFailed(() => screenshot(page, 'routing-failed').then(() => undefined));
    await signedIn(page, stack);
    await page.goto(`${stack.baseUrl}/console/pipes/${encodeURIComponent(seeded.pipe.id)}`);
    await page.getByRole('heading', { name: 'Plain', level: 1 }).waitFor();
    const panel = page.getByRole('form', { name: 'Template and routing' });
    await panel.getByRole('combobox', { name: 'Event source' }).selectOption('header');
    // A header name with a space is refused beside the field, before anything is sent.
    await panel.getByLabel('Header name').fill('X Deploy Event');
    await panel.getByRole('button', { name: 'Add a route' }).click();
    await panel.getByLabel('Event of route 1').fill('deploy');
    await panel.getByRole('combobox', { name: 'Template for deploy' }).selectOption({ label: 'Deploy note' });
    await panel.getByRole('button', { name: 'Save template and routing' }).click();
    await panel.getByText('A header name has letters, digits and - (no spaces).').waitFor();
    await panel.getByLabel('Header name').fill('X-Deploy-Event');
    await panel.getByRole('button', { name: 'Add a route' }).click();
    await panel.getByLabel('Event of route 2').fill('ping');
    await panel.getByRole('combobox', { name: 'Default template' }).selectOption({ label: 'Anything else' });
    await panel.getByRole('button', { name: 'Save template and routing' }).click();
    await panel.getByText('Template and routing saved.').waitFor();
    await expect.poll(() => fact(page, 'Event source').textContent()).toBe('header x-deploy-event');
    const routes = fact(page, 'Routes');
    await routes.getByRole('link', { name: 'Deploy note', exact: true }).waitFor();
    expect(await routes.getByRole('listitem').filter({ hasText: 'ping' }).textContent()).toBe(
      'ping → answered, not posted',
    );
    await screenshot(page, 'pipe-routing');
    const view = await stack.admin<{ pipe: { event_source: unknown; routes: unknown; template_id: string } }>(
      'GET',
      `/admin/api/pipe/view?id=${encodeURIComponent(seeded.pipe.id)}`,
    );
    expect(view.pipe).toMatchObject({
      event_source: { header: 'x-deploy-event' },
      routes: { deploy: deploy.model.id, ping: null },
      template_id: other.model.id,
    });
    // The door follows the saved routes: ping answered and skipped, deploy queued.
    const body = JSON.stringify({ version: '1.2.3' });
    const ping = await post(seeded.url, body, { 'X-Deploy-Event': 'ping' });
    expect([ping.status, ping.data.skipped, ping.data.reason]).toEqual([200, true, 'event_ignored']);
    const sent = await post(seeded.url, body, { 'X-Deploy-Event': 'deploy' });
    expect([sent.status, sent.code]).toEqual([200, 0]);

    // Off again: no routing, the template kept as the pipe's only one.
    await panel.getByRole('combobox', { name: 'Event source' }).selectOption('none');
    await panel.getByRole('button', { name: 'Save template and routing' }).click();
    await panel.getByText('Routes need an event source.').waitFor();
    await panel.getByRole('combobox', { name: 'Event source' }).selectOption('header');
    await panel.getByRole('button', { name: 'Remove route 2' }).click();
    await panel.getByRole('button', { name: 'Remove route 1' }).click();
    await panel.getByRole('combobox', { name: 'Event source' }).selectOption('none');
    await panel.getByRole('button', { name: 'Save template and routing' }).click();
    await panel.getByText('Template and routing saved.').waitFor();
    await expect.poll(() => fact(page, 'Event source').textContent()).not.toContain('x-deploy-event');
    const after = await stack.admin<{
      pipe: { event_source: unknown; routes: unknown; template_id: string };
    }>('GET', `/admin/api/pipe/view?id=${encodeURIComponent(seeded.pipe.id)}`);
    expect(after.pipe).toMatchObject({ event_source: null, template_id: other.model.id });

    // Grouping: a digest per deploy id and minute; a window of 0 is refused beside its field.
    const grouping = page.getByRole('form', { name: 'Grouping (alert storms)' });
    await grouping.getByRole('combobox', { name: 'Mode' }).selectOption('digest');
    await grouping.getByLabel(/^Group key/).fill('{{ data.version }}');
    await grouping.getByLabel(/^Window \(seconds\)/).fill('0');
    await grouping.getByRole('button', { name: 'Save grouping' }).click();
    await grouping.getByText('The window is a whole number of seconds from 1 to 86400.').waitFor();
    await grouping.getByLabel(/^Window \(seconds\)/).fill('60');
    await grouping.getByRole('button', { name: 'Save grouping' }).click();
    await grouping.getByText('Grouping saved.').waitFor();
    const grouped = await stack.admin<{ pipe: { grouping: unknown } }>(
      'GET',
      `/admin/api/pipe/view?id=${encodeURIComponent(seeded.pipe.id)}`,
    );
    expect(grouped.pipe.grouping).toEqual({
      key: '{{ data.version }}',
      mode: 'digest',
      window_s: 60,
      limit: null,
    });
    await expect
      .poll(() => fact(page, 'Grouping').textContent())
      .toBe('Digest by {{ data.version }}, 60 s windows');
    // The latest deliveries come right after the details, before the settings panels.
    const headings = await page.locator('h2').evaluateAll((hs) => hs.map((h) => h.textContent ?? ''));
    expect(headings.filter((n) => ['Latest deliveries', 'Template and routing'].includes(n))).toEqual([
      'Latest deliveries',
      'Template and routing',
    ]);
    await page.setViewportSize({ width: 390, height: 900 });
    await screenshot(page, 'pipe-routing-phone');
    await context.close();
  }, 120_000);
});
