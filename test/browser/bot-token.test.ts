import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectSecurePage, openPage, type Stack, screenshot, signedIn, useStack } from './stack.js';

/* A bot made in the Bots screen, its token shown once, rotated, and the old one refused. */
let stack: Stack;
let browser: Browser;
useStack('browser_bot_token', (s, b) => {
  [stack, browser] = [s, b];
});

/** What the bot API answers a bot token, as a bot's program would call it. */
async function botApiStatus(stack: Stack, token: string): Promise<number> {
  const res = await fetch(`${stack.baseUrl}/api/v3/intimacy/index?user_id=1`, {
    headers: { Authorization: `Bot ${token}` },
  });
  await res.arrayBuffer();
  return res.status;
}

const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name, exact: true }).click();

describe('a bot token', () => {
  it('is shown once with a copy button, rotated with a confirmation, and the old one stops working', async () => {
    const opened = await openPage(browser, { permissions: ['clipboard-read', 'clipboard-write'] });
    const { context, page } = opened;
    await signedIn(page, stack);
    await nav(page, 'Bots');
    await page.getByRole('heading', { name: 'Bots', level: 1 }).waitFor();
    await page.getByText('There are no bots yet.').waitFor();

    // Create: the token is shown once, with a copy button that copies it.
    await page.getByRole('link', { name: 'New bot' }).click();
    await page.getByRole('heading', { name: 'New bot', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Token Bot');
    await page.getByRole('button', { name: 'Create bot' }).click();
    await page.getByText('Bot Token Bot was created.').waitFor();
    await page.getByText('Shown only this once: copy it now and keep it safe.').waitFor();
    const first = await page.getByLabel('Bot token', { exact: true }).inputValue();
    expect(first.length).toBeGreaterThanOrEqual(16);
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(first);
    expect(await botApiStatus(stack, first)).toBe(200);

    // Its page, then rotate: a confirmation first, then the new token, shown once.
    await page.getByRole('button', { name: 'Open this bot' }).click();
    await page.getByRole('heading', { name: 'Token Bot', level: 1 }).waitFor();
    expect(await page.getByLabel('Bot token', { exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: 'Rotate token' }).click();
    const dialog = page.getByRole('dialog', { name: "Rotate Token Bot's token?" });
    await dialog.getByText('The old token stops working at once').waitFor();
    await dialog.getByRole('button', { name: 'Rotate token' }).click();
    const newToken = page.getByLabel('New bot token', { exact: true });
    await newToken.waitFor();
    const second = await newToken.inputValue();
    expect(second).not.toBe(first);
    await page.getByText('Shown only this once: copy it now and keep it safe.').waitFor();
    await page.getByRole('button', { name: 'Copy', exact: true }).waitFor();

    // The bot API refuses the old token and takes the new one.
    expect(await botApiStatus(stack, first)).toBe(401);
    expect(await botApiStatus(stack, second)).toBe(200);

    // Away and back: the token is gone from the page.
    await nav(page, 'Overview');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await nav(page, 'Bots');
    await page.getByRole('link', { name: 'Token Bot' }).click();
    await page.getByRole('heading', { name: 'Token Bot', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Rotate token' }).waitFor();
    expect(await page.getByLabel('New bot token', { exact: true }).count()).toBe(0);
    expect(await page.getByText('Shown only this once').count()).toBe(0);
    const html = await page.content();
    expect(html).not.toContain(first);
    expect(html).not.toContain(second);
    await screenshot(page, 'bot-token-rotated');

    expect(stack.logs()).not.toContain(first);
    expect(stack.logs()).not.toContain(second);
    await expectSecurePage(opened, [stack.adminToken, first, second]);
    await context.close();
  }, 90_000);
});
