import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  expectSecurePage,
  openPage,
  type SeededPipe,
  type Stack,
  screenshot,
  seedPipe,
  sendThroughPipe,
  signedIn,
  useStack,
} from './stack.js';

/*
 * A message that fails for lack of permission: seen with its reason in Deliveries, explained and
 * fixed in Directory, then replayed (one from its page, the rest in bulk) and seen sent.
 */
let stack: Stack;
let browser: Browser;
let seeded: SeededPipe;
useStack('browser_replay', async (s, b) => {
  [stack, browser] = [s, b];
  // The @everyone role may view but not send: the bot (a plain member) cannot post.
  seeded = await seedPipe(
    stack,
    { bot: 'Alert Bot', guild: 'Ops', channel: 'alerts', pipe: 'Disk alerts' },
    { everyonePermissions: 2048 },
  );
});

const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name, exact: true }).click();

describe('a message that fails for lack of permission', () => {
  it('is shown failed with its reason, fixed in Directory, replayed and shown sent', async () => {
    const first = await sendThroughPipe(seeded.url, { content: 'Disk **full** on db-1' });
    const second = await sendThroughPipe(seeded.url, { content: 'Disk **full** on db-2' });

    const opened = await openPage(browser);
    const { context, page } = opened;
    await signedIn(page, stack);
    await page.getByRole('navigation', { name: 'Main navigation' }).waitFor();

    // Deliveries, failed only: both messages, with their reason.
    await nav(page, 'Deliveries');
    await page.getByRole('heading', { name: 'Deliveries', level: 1 }).waitFor();
    await page.getByLabel('Status').selectOption({ label: 'Failed' });
    await page.getByRole('heading', { name: 'Dead letters' }).waitFor();
    const rowOf = (msgId: string) => page.getByRole('row').filter({ hasText: msgId });
    for (const msgId of [first, second]) {
      await expect.poll(() => rowOf(msgId).count(), { timeout: 30_000 }).toBe(1);
      expect(await rowOf(msgId).getByRole('cell').nth(1).textContent()).toBe('Failed');
      expect(await rowOf(msgId).getByRole('cell').nth(4).textContent()).toBe('NO_SEND_PERMISSION');
    }

    // The message's page says why.
    await rowOf(first).getByRole('link', { name: first }).click();
    await page.getByRole('heading', { name: 'Delivery', level: 1 }).waitFor();
    const error = page.getByRole('region', { name: 'Error' });
    await error.getByText('NO_SEND_PERMISSION').waitFor();
    await error.getByText('40323').waitFor();

    // Directory -> the server -> the channel's "can this bot send here?": denied, by @everyone.
    await nav(page, 'Directory');
    await page.getByRole('link', { name: 'Ops', exact: true }).click();
    await page.getByRole('heading', { name: 'Ops', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Permissions and check: alerts' }).click();
    await page.getByRole('heading', { name: 'Channel #alerts' }).waitFor();
    const checker = page.getByRole('region', { name: 'Can this bot send here?' });
    await checker.getByLabel('Bot').selectOption({ label: `Alert Bot · ${seeded.bot.id}` });
    await checker.getByRole('button', { name: 'Check' }).click();
    await checker.getByText('Cannot send').waitFor();
    await checker.getByText('Decided by: The @everyone role (@全体成员)').waitFor();
    await checker.getByText('Missing permission: Send messages').waitFor();

    // The fix, with the role's checkboxes: @everyone may send.
    const everyone = page.getByRole('form', { name: 'Role @全体成员 (id 0)' });
    const send = everyone.getByRole('checkbox', { name: /Send messages/ });
    expect(await send.isChecked()).toBe(false);
    await send.check();
    await everyone.getByRole('button', { name: 'Save' }).click();
    await everyone.getByText('Saved.').waitFor();

    // The checker now allows it, and still names who decides.
    await checker.getByRole('button', { name: 'Check' }).click();
    await checker.getByText('Can send').waitFor();
    await checker.getByText('Decided by: The @everyone role (@全体成员)').waitFor();
    // By now the server view has reloaded after the save: the row still says so, and is ticked.
    expect(await everyone.getByText('Saved.').isVisible()).toBe(true);
    expect(await everyone.getByRole('checkbox', { name: /Send messages/ }).isChecked()).toBe(true);

    // Replay one from its page: it goes through, and the page follows it until it is sent.
    await page.goBack();
    await page.goBack();
    await page.getByRole('heading', { name: 'Delivery', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Replay' }).click();
    const dialog = page.getByRole('dialog', { name: 'Replay this message?' });
    await dialog.getByRole('button', { name: 'Replay' }).click();
    await expect
      .poll(() => page.locator('.page-head .badge').textContent(), { timeout: 30_000 })
      .toBe('Sent');
    await page.getByRole('heading', { name: 'Rendered message' }).waitFor();
    await page.locator('.msg-drawn').getByText('Disk full on db-1').waitFor();

    // The rest in bulk, from the dead letters with the same reason: the confirmation says how many.
    await page.getByRole('link', { name: '← Deliveries' }).click();
    await page.getByLabel('Status').selectOption({ label: 'Failed' });
    await expect.poll(() => rowOf(second).count(), { timeout: 30_000 }).toBe(1);
    // (The list reads the records, which the worker's sent log writes a moment after the send.)
    await expect.poll(() => rowOf(first).count(), { timeout: 30_000 }).toBe(0);
    await rowOf(second).getByRole('link', { name: 'NO_SEND_PERMISSION' }).click();
    await expect.poll(() => page.getByLabel('Reason').inputValue()).toBe('NO_SEND_PERMISSION');
    await page.getByRole('button', { name: 'Replay all matching (1)' }).click();
    const bulk = page.getByRole('dialog', { name: 'Replay 1 dead message?' });
    await bulk.getByText('Every failed message matching Reason NO_SEND_PERMISSION').waitFor();
    await bulk.getByRole('button', { name: 'Replay 1' }).click();
    // Polled on the panel's text, so that a failure shows what it said instead (an error, other counts).
    await expect
      .poll(() => page.locator('.dead-letters').textContent(), { timeout: 30_000 })
      .toContain('1 replayed, 0 skipped, 0 remaining.');

    // Both sent: the list of sent messages shows them (on its own refresh if need be).
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => page.getByLabel('Reason').inputValue()).toBe('');
    await page.getByLabel('Status').selectOption({ label: 'Sent' });
    for (const msgId of [first, second]) {
      // (Polled: the row can show the record's status a moment before the sent log writes it.)
      await expect
        .poll(() => rowOf(msgId).getByRole('cell').nth(1).textContent(), { timeout: 30_000 })
        .toBe('Sent');
    }
    await rowOf(second).getByRole('link', { name: second }).click();
    await page.getByRole('heading', { name: 'Status history' }).waitFor();
    const summary = page.getByRole('region', { name: 'Summary' });
    await summary.getByRole('link', { name: 'Disk alerts' }).waitFor();
    await summary.getByRole('link', { name: 'Alert Bot' }).waitFor();
    await summary.getByRole('link', { name: '#alerts' }).waitFor();
    await expect.poll(() => page.locator('.page-head .badge').textContent()).toBe('Sent');
    const history = page.getByRole('region', { name: 'Status history' });
    await expect.poll(() => history.textContent()).toMatch(/Failed[\s\S]*Replayed[\s\S]*Sent/);
    await screenshot(page, 'replay-sent');

    await expectSecurePage(opened, [stack.adminToken, seeded.botToken, seeded.pipeToken]);
    await context.close();
  }, 150_000);
});
