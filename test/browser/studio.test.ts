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
 * The template studio (issue 19) on a real web and worker: a gallery template taken into a bot's
 * templates and drawn as a card, broken and fixed in the editor, fed a captured payload and sent
 * to the test channel; a bot developer's session that sees only its bot's templates; and the
 * review workflow up to a ban, after which a pipe's message fails with TEMPLATE_BANNED.
 */
let stack: Stack;
let browser: Browser;
let seeded: SeededPipe;
useStack('browser_studio', async (s, b) => {
  [stack, browser] = [s, b];
  seeded = await seedPipe(stack, { bot: 'Git Bot', guild: 'Dev', channel: 'commits', pipe: 'GitLab hook' });
});

const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name, exact: true }).click();

/** The gallery's GitLab push sample with the project renamed, as a sender would post it. */
function gitlabPush(projectName: string): Record<string, unknown> {
  const sample = JSON.parse(
    readFileSync(new URL('../../src/gallery/samples/gitlab-push/push.json', import.meta.url), 'utf8'),
  ) as { project: Record<string, unknown> };
  return {
    ...sample,
    project: { ...sample.project, name: projectName, path_with_namespace: `ops/${projectName}` },
  };
}

async function postToPipe(url: string, body: unknown, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const envelope = (await res.json()) as { code: number; message: string; data: { msg_id: string } };
  if (res.status !== 200 || envelope.code !== 0)
    throw new Error(`send-pipemsg: ${res.status} ${envelope.message}`);
  return envelope.data.msg_id;
}

/** Signs in through the form with a bot's token, as a bot developer would. */
async function signInAsBot(page: Page, token: string): Promise<void> {
  await page.goto(`${stack.baseUrl}/console/`);
  await page.getByRole('radio', { name: 'Bot developer (bot token)' }).check();
  await page.getByRole('textbox', { name: /^Bot token/ }).fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // Signed in once the shell shows: a navigation started before that can cancel the sign-in's
  // request, and the page then opens signed out.
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** The review panel's status badge. */
const reviewStatus = (panel: ReturnType<Page['getByRole']>) =>
  panel.locator('dd .badge').first().textContent();

/** Replaces an editor's whole text by typing, as a person would. */
async function retype(page: Page, editor: ReturnType<Page['getByRole']>, text: string): Promise<void> {
  await editor.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type(text);
}

describe('the template studio', () => {
  it('takes a gallery template, draws it, marks an error in place, uses a captured payload and sends to the test channel', async () => {
    const opened = await openPage(browser, { height: 1000 });
    const { context, page } = opened;
    onTestFailed(() => screenshot(page, 'studio-failed').then(() => undefined));
    await signedIn(page, stack);
    await nav(page, 'Gallery');
    await page.getByRole('link', { name: 'GitLab push', exact: true }).click();
    await page.getByRole('heading', { name: 'GitLab push', level: 1 }).waitFor();
    await page
      .getByLabel('Bot to preview and save with')
      .selectOption({ label: `Git Bot · ${seeded.bot.id}` });
    // The sample drawn as a card: the card view draws its sections as text, not as JSON.
    const galleryCard = page.locator('.kcard').first();
    await galleryCard.waitFor();
    await page.getByRole('button', { name: 'Use this template' }).click();

    // The copy opens in the studio, its preview drawn from its test data (the sample).
    const template = page.getByRole('textbox', { name: 'Template', exact: true });
    await template.waitFor();
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.locator('.kcard').first().waitFor();
    const sample = JSON.parse(
      readFileSync(new URL('../../src/gallery/samples/gitlab-push/push.json', import.meta.url), 'utf8'),
    ) as { project: { path_with_namespace: string } };
    await preview.getByText(sample.project.path_with_namespace, { exact: false }).first().waitFor();

    // Broken: an unknown filter on a new last line is marked on that line, and said under the preview.
    const templateId = new URL(page.url()).pathname.split('/').pop() as string;
    const saved = await stack.admin<{ template: { content: string } }>(
      'GET',
      `/admin/api/template/view?id=${templateId}`,
    );
    const brokenLine = saved.template.content.split('\n').length + 1;
    await template.click();
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.type('\n{{ data.ref|no_such_filter }}');
    const alert = preview.getByRole('alert');
    await alert.getByText('The template has an error (marked in the editor):').waitFor();
    await alert.getByText(`line ${brokenLine}, column 13`, { exact: false }).waitFor();
    // (CodeMirror draws only the lines in view: the marked line is known by its text.)
    const marked = page.locator('.cm-lintRange-error').first();
    await marked.waitFor();
    expect(await marked.evaluate((el) => el.closest('.cm-line')?.textContent)).toBe(
      '{{ data.ref|no_such_filter }}',
    );
    await screenshot(page, 'studio-error');
    // Fixed: the line taken out again, the error is gone and the card is drawn anew.
    // (The line's text selected and deleted, then its line break: three keys, not one per character.)
    await page.keyboard.press('Shift+Home');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await expect.poll(() => preview.getByRole('alert').count(), { timeout: 10_000 }).toBe(0);
    await expect.poll(() => page.locator('.cm-lintRange-error').count()).toBe(0);
    // The text is as saved again: nothing to save.
    expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);

    // The pipe uses the template; a sender posts a push, and the studio offers it as test data.
    await stack.admin('POST', '/admin/api/pipe/update', { id: seeded.pipe.id, template_id: templateId });
    await postToPipe(seeded.url, gitlabPush('captured-project'), { 'X-Gitlab-Event': 'Push Hook' });
    // The studio lists the pipes that use the template when it opens.
    await page.reload();
    const captures = page.getByRole('region', { name: 'Captured payloads' });
    await expect
      .poll(
        async () => {
          await captures.getByRole('button', { name: 'Refresh' }).click();
          return captures.getByRole('button', { name: 'Use as test data' }).count();
        },
        { timeout: 30_000 },
      )
      .toBeGreaterThan(0);
    await captures.getByRole('button', { name: 'Use as test data' }).first().click();
    await expect
      .poll(() => page.getByRole('textbox', { name: 'Test data (JSON)' }).textContent())
      .toContain('captured-project');
    await preview.getByText('ops/captured-project', { exact: false }).first().waitFor();

    // Sent for real to the test channel, through the bot's queue, and delivered.
    await page.getByLabel('Test channel').selectOption({ label: `#${seeded.channel.name}` });
    await page.getByRole('button', { name: 'Send to test channel' }).click();
    // The test data and channel are not saved: leaving for the delivery asks first; "no" stays.
    const answer = (accept: boolean) =>
      new Promise<string>((resolve) =>
        page.once('dialog', (d) => {
          resolve(d.message());
          void (accept ? d.accept() : d.dismiss());
        }),
      );
    const studioUrl = page.url();
    const stayed = answer(false);
    await preview.getByRole('link', { name: 'Open the delivery' }).click();
    expect(await stayed).toBe('There are unsaved changes. Leave anyway?');
    expect(page.url()).toBe(studioUrl);
    await template.waitFor();
    const left = answer(true);
    await preview.getByRole('link', { name: 'Open the delivery' }).click();
    await left;
    await page.getByRole('heading', { name: 'Delivery', level: 1 }).waitFor();
    await expect
      .poll(() => page.locator('.page-head .badge').textContent(), { timeout: 30_000 })
      .toBe('Sent');
    await page.getByText('Studio test send (no pipe)').waitFor();
    await page.locator('.kcard').first().waitFor();

    await expectSecurePage(opened, [stack.adminToken, seeded.botToken, seeded.pipeToken]);
    await context.close();
  });

  it("shows a bot developer only its own bot's templates", async () => {
    const other = await seedPipe(stack, {
      bot: 'Other Bot',
      guild: 'Elsewhere',
      channel: 'x',
      pipe: 'Other',
    });
    const mine = await stack.admin<{ model: { id: string } }>('POST', '/admin/api/template/create', {
      bot_id: seeded.bot.id,
      title: 'Mine to edit',
      content: 'Hello {{ data.name|kmd_escape }}',
    });
    const theirs = await stack.admin<{ model: { id: string } }>('POST', '/admin/api/template/create', {
      bot_id: other.bot.id,
      title: 'Not for Git Bot',
      content: 'secret layout',
    });
    const opened = await openPage(browser);
    const { context, page } = opened;
    await signInAsBot(page, seeded.botToken);
    await page.getByRole('heading', { name: 'Templates', level: 1 }).waitFor();
    const links = page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link');
    expect(await links.allTextContents()).toEqual(['Templates', 'Gallery']);
    await page.getByRole('link', { name: 'Mine to edit' }).waitFor();
    expect(await page.getByText('Not for Git Bot').count()).toBe(0);
    // Asked for by its id, another bot's template is not found (nothing of it is shown).
    await page.goto(`${stack.baseUrl}/console/templates/${theirs.model.id}`);
    await page.getByText('template not found', { exact: false }).waitFor();
    expect(await page.getByText('secret layout').count()).toBe(0);
    await page.goto(`${stack.baseUrl}/console/templates/${mine.model.id}`);
    await page.getByRole('textbox', { name: 'Template', exact: true }).waitFor();
    await screenshot(page, 'studio-bot-session');
    await expectSecurePage(opened, [seeded.botToken, other.botToken]);
    await context.close();
  });

  it('runs the review: submitted, approved, back to not reviewed when edited, banned; a banned template fails its sends', async () => {
    const made = await stack.admin<{ model: { id: string } }>('POST', '/admin/api/template/create', {
      bot_id: seeded.bot.id,
      title: 'Release notes',
      content: 'Released **{{ data.version|kmd_escape }}**',
      test_data: '{"version":"1.0"}',
    });
    const id = made.model.id;
    const dev = await openPage(browser);
    await signInAsBot(dev.page, seeded.botToken);
    await dev.page.goto(`${stack.baseUrl}/console/templates/${id}`);
    const devReview = dev.page.getByRole('region', { name: 'Review' });
    await devReview.getByRole('button', { name: 'Submit for review' }).click();
    await expect.poll(() => reviewStatus(devReview)).toBe('In review');
    // A bot developer cannot decide its own review.
    expect(await devReview.getByRole('button', { name: 'Approve' }).count()).toBe(0);

    const ops = await openPage(browser);
    await signedIn(ops.page, stack);
    await ops.page.getByRole('button', { name: 'Sign out' }).waitFor();
    await ops.page.goto(`${stack.baseUrl}/console/templates/${id}`);
    const opsReview = ops.page.getByRole('region', { name: 'Review' });
    await opsReview.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => reviewStatus(opsReview)).toBe('Approved');
    await opsReview.getByText('Each message costs 0.5', { exact: false }).first().waitFor();

    // The developer changes the approved template: back to not reviewed, at a normal message's cost.
    await dev.page.reload();
    const template = dev.page.getByRole('textbox', { name: 'Template', exact: true });
    await retype(dev.page, template, 'Released {{ data.version|kmd_escape }} today');
    await dev.page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => reviewStatus(devReview)).toBe('Not reviewed');
    const after = await stack.admin<{ template: { status: number; consumption: number; content: string } }>(
      'GET',
      `/admin/api/template/view?id=${id}`,
    );
    expect(after.template).toMatchObject({
      status: 0,
      consumption: 1,
      content: 'Released {{ data.version|kmd_escape }} today',
    });

    // Banned by the operator: a pipe's message with it fails, with its reason in Deliveries.
    await ops.page.reload();
    await opsReview.getByRole('button', { name: 'Ban' }).click();
    await ops.page.getByRole('dialog').getByRole('button', { name: 'Ban' }).click();
    await expect.poll(() => opsReview.locator('dd .badge').nth(1).textContent()).toBe('Banned');
    await stack.admin('POST', '/admin/api/pipe/update', { id: seeded.pipe.id, template_id: id });
    const msgId = await postToPipe(seeded.url, { version: '2.0' });
    await ops.page.goto(`${stack.baseUrl}/console/deliveries/${msgId}`);
    await expect
      .poll(() => ops.page.locator('.page-head .badge').textContent(), { timeout: 30_000 })
      .toBe('Failed');
    await ops.page.getByRole('region', { name: 'Error' }).getByText('TEMPLATE_BANNED').waitFor();
    await screenshot(ops.page, 'studio-banned');

    await expectSecurePage(dev, [seeded.botToken]);
    await expectSecurePage(ops, [stack.adminToken]);
    await dev.context.close();
    await ops.context.close();
  });
});
