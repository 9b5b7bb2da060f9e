import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  expectSecurePage,
  openPage,
  type Stack,
  screenshot,
  sendThroughPipe,
  signedIn,
  useStack,
} from './stack.js';

/* The guided first pipe from an empty install, to a message sent through its URL and drawn as a card. */
let stack: Stack;
let browser: Browser;
useStack('browser_first_pipe', (s, b) => {
  [stack, browser] = [s, b];
});

describe('the guided first pipe', () => {
  it('walks an empty install to a pipe, and its first message shows in Deliveries as a drawn card', async () => {
    const opened = await openPage(browser);
    const { context, page } = opened;
    await signedIn(page, stack);

    // An empty install: the overview points to the guide.
    await page.getByText('There are no bots yet.').waitFor();
    await page.getByRole('link', { name: 'Set up a first pipe with the guide' }).click();
    await page.getByRole('heading', { name: 'A guided first pipe', level: 1 }).waitFor();
    await page.getByText('0 of 4 steps done').waitFor();

    // Step 1: the bot, with its token shown once.
    await page.getByRole('button', { name: 'Create the bot' }).click();
    await page.getByText('Created the bot Herald Bot').waitFor();
    const botToken = await page.getByLabel('Bot token', { exact: true }).inputValue();
    expect(botToken.length).toBeGreaterThanOrEqual(16);

    // Step 2: the server (with a new owner) and the channel.
    await page.getByRole('button', { name: 'Create the server and channel' }).click();
    await page.getByText('Text channel #announcements, where the bot may view and send').waitFor();
    await page.getByText('Server Herald HQ').waitFor();

    // Step 3: the membership, by the bot's user id.
    await page.getByRole('button', { name: 'Add to the server' }).click();
    await page.getByText('Herald Bot is a member of Herald HQ').waitFor();

    // Step 4: the pipe, with the starter card template.
    await page.getByRole('radio', { name: /A starter card template/ }).check();
    await expect.poll(() => page.locator('pre.starter').textContent()).toContain('"type": "header"');
    await page.getByRole('button', { name: 'Create the pipe' }).click();
    await page.getByRole('heading', { name: 'Done: send the first message' }).waitFor();
    await page.getByText('4 of 4 steps done').waitFor();
    await page.getByText('Template First pipe template').waitFor();
    await page.getByText('Try it with curl').waitFor();

    // The URL is shown once, with the pipe's token in it: the sender reads it off the page.
    const url = await page.getByLabel('Pipe URL').inputValue();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v3\/message\/send-pipemsg\?access_token=hrp_/);
    const pipeToken = new URL(url).searchParams.get('access_token') ?? '';
    // The curl example posts the template's test data to that URL.
    const curl = await page.locator('pre.curl-cmd').textContent();
    expect(curl).toContain(url);
    expect(curl).toContain('Hello from Herald');

    const msgId = await sendThroughPipe(url, {
      title: 'Deploy finished',
      text: 'Build **#42** passed on "main"',
    });

    // Deliveries, filtered to sent: the message arrives there on the list's own refresh.
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Deliveries' })
      .click();
    await page.getByRole('heading', { name: 'Deliveries', level: 1 }).waitFor();
    await page.getByLabel('Status').selectOption({ label: 'Sent' });
    const row = page.getByRole('row').filter({ hasText: msgId });
    await expect.poll(() => row.count(), { timeout: 30_000 }).toBe(1);
    expect(await row.getByRole('cell').nth(1).textContent()).toBe('Sent');
    await expect.poll(() => row.getByRole('cell').nth(3).textContent()).toBe('First pipe');

    // Its page: sent, and the rendered message drawn as a card, not JSON.
    await row.getByRole('link', { name: msgId }).click();
    await page.getByRole('heading', { name: 'Delivery', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Rendered message' }).waitFor();
    await expect.poll(() => page.locator('.page-head .badge').textContent()).toBe('Sent');
    await page.getByText('Card message').waitFor();
    const drawn = page.locator('.msg-drawn');
    await drawn.getByRole('heading', { name: 'Deploy finished' }).waitFor();
    // The section's KMarkdown is formatted: the bold marks are gone, the quotes kept.
    await drawn.getByText('Build #42 passed on "main"').waitFor();
    expect(await drawn.locator('strong').first().textContent()).toBe('#42');
    expect(await drawn.getByRole('separator').count()).toBe(1);
    expect(await drawn.textContent()).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(await drawn.textContent()).not.toContain('"type"');
    const summary = page.getByRole('region', { name: 'Summary' });
    await summary.getByRole('link', { name: 'First pipe' }).waitFor();
    await summary.getByRole('link', { name: '#announcements' }).waitFor();
    // docs/images/console-delivery-card.png (in the README) is a copy of this one.
    await screenshot(page, 'first-pipe-card');

    // The toggle shows the raw JSON.
    await page.getByRole('button', { name: 'Raw' }).click();
    const raw = page.locator('pre.msg-raw');
    await raw.waitFor();
    const json = JSON.parse((await raw.textContent()) ?? '') as { modules: { type: string }[] }[];
    expect(json[0]?.modules.map((m) => m.type)).toEqual(['header', 'section', 'divider', 'context']);
    expect(await raw.textContent()).toContain('"content": "Build **#42** passed on \\"main\\""');
    await page.getByRole('button', { name: 'Drawn' }).waitFor();
    await screenshot(page, 'first-pipe-raw');

    await expectSecurePage(opened, [stack.adminToken, botToken, pipeToken]);
    expect(stack.logs()).not.toContain(stack.adminToken);
    await context.close();
  }, 120_000);
});
