import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  expectSecurePage,
  openPage,
  type Stack,
  screenshot,
  seedPipe,
  sendThroughPipe,
  signedIn,
  useStack,
} from './stack.js';

/*
 * The template studio against the real API: the GitLab card previewed with its limits, a broken
 * template marked on the right line and fixed, a captured payload rendered and taken as test
 * data, a test message sent through the bot and delivered, and a save.
 */
let stack: Stack;
let browser: Browser;
useStack('browser_template_studio', (s, b) => {
  [stack, browser] = [s, b];
});

describe('the template studio', () => {
  it('previews, marks an error on its line, renders a captured payload, sends a test and saves', async () => {
    const seeded = await seedPipe(stack, { bot: 'Studio Bot', guild: 'HQ', channel: 'ci', pipe: 'GitLab' });
    const content = readFileSync('test/fixtures/gitlab/push-card.json.twig', 'utf8');
    const data = readFileSync('test/fixtures/gitlab/push-event.json', 'utf8');
    const { model } = await stack.admin<{ model: { id: string } }>('POST', '/admin/api/template/create', {
      bot_id: seeded.bot.id,
      title: 'GitLab push',
      content,
      msgtype: 2,
      test_data: data,
      test_channel: seeded.channel.id,
    });
    // The pipe uses the template and receives one push, which it keeps as a captured payload.
    await stack.admin('POST', '/admin/api/pipe/update', { id: seeded.pipe.id, template_id: model.id });
    const push = JSON.parse(data) as { user_name: string; total_commits_count: number; commits: unknown[] };
    push.user_name = 'Captured Person';
    push.total_commits_count = 1;
    push.commits = push.commits.slice(0, 1);
    await sendThroughPipe(seeded.url, push);

    const opened = await openPage(browser);
    const { context, page } = opened;
    await signedIn(page, stack);
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.goto(`${stack.baseUrl}/console/templates/${model.id}`);
    const drawn = page.locator('.studio-drawn');

    // The preview draws the card, with the limit it is near (1 + 2 x 20 modules of 50).
    await drawn.getByText(/pushed 20 commits/).waitFor();
    await page.getByText('Modules in all cards near the limit: 41 of 50').waitFor();

    // Broken: an unknown filter on the last line is marked there, and said under the preview.
    const template = page.getByRole('textbox', { name: 'Template', exact: true });
    await template.click();
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.type('{{ data.x|nope');
    await page.getByText('The template has an error (marked in the editor):').waitFor();
    await page.getByText('Template does not compile (line 30, column 11): Unknown "nope" filter.').waitFor();
    await expect
      .poll(() => page.locator('.cm-line').nth(29).locator('.cm-lintRange-error').allTextContents())
      .toEqual(['nope']);
    // Fixed (undone): the marker and the error go.
    await page.keyboard.press('ControlOrMeta+z');
    await expect.poll(() => page.locator('.studio-error').count()).toBe(0);
    await expect.poll(() => page.locator('.cm-lintRange-error').count()).toBe(0);

    // The captured payload, rendered with the template, then back; then taken as the test data.
    await page.getByRole('button', { name: 'Render with current template' }).click();
    await page.getByText(/Rendered with the payload captured/).waitFor();
    await drawn.getByText(/Captured Person/).waitFor();
    await page.getByRole('button', { name: 'Back to the test data' }).click();
    await drawn.getByText(/pushed 20 commits/).waitFor();
    await page.getByRole('button', { name: 'Use as test data' }).click();
    await drawn.getByText(/pushed 1 commit /).waitFor();
    await expect
      .poll(() => page.getByRole('textbox', { name: 'Test data (JSON)' }).textContent())
      .toContain('"user_name": "Captured Person"');

    // A test message through the bot to the test channel, delivered.
    await page.getByRole('button', { name: 'Send to test channel' }).click();
    await page.getByRole('link', { name: 'Open the delivery' }).waitFor();
    await expect.poll(() => page.locator('.delivery-watch .badge').first().textContent()).toMatch(/sent/i);

    // Saved with a new title and the captured test data.
    await page.getByLabel('Title').fill('GitLab push v2');
    await page.getByText('Unsaved changes').waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved', { exact: true }).waitFor();
    await page.getByRole('heading', { name: 'GitLab push v2', level: 1 }).waitFor();
    const { template: saved } = await stack.admin<{ template: { title: string; test_data: string } }>(
      'GET',
      `/admin/api/template/view?id=${model.id}`,
    );
    expect(saved.title).toBe('GitLab push v2');
    expect(JSON.parse(saved.test_data)).toEqual(push);

    await screenshot(page, 'template-studio');
    await expectSecurePage(opened, [stack.adminToken, seeded.botToken, seeded.pipeToken]);
    await context.close();
  });
});
