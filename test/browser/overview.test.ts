import type { Browser, Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  expectSecurePage,
  openPage,
  overflowsSideways,
  type SeededPipe,
  type Stack,
  screenshot,
  seedPipe,
  sendThroughPipe,
  signedIn,
  useStack,
} from './stack.js';

/* The overview's numbers refresh on their own; the overview and deliveries fit a phone's width. */
let stack: Stack;
let browser: Browser;
let open: SeededPipe;
let locked: SeededPipe;
useStack('browser_overview', async (s, b) => {
  [stack, browser] = [s, b];
  open = await seedPipe(stack, { bot: 'Deploy Bot', guild: 'Studio', channel: 'deploys', pipe: 'Deploys' });
  // A channel where @everyone is denied sending: what is sent there dies with NO_SEND_PERMISSION.
  locked = await seedPipe(
    stack,
    { bot: 'Audit Bot', guild: 'Archive', channel: 'audit', pipe: 'Audit log' },
    { permissionOverwrites: [{ role_id: 0, deny: 4096 }] },
  );
});

/** The number shown on the overview's stat card with this label. */
const stat = (page: Page, label: string): Locator =>
  page
    .locator('.stat')
    .filter({ has: page.getByText(label, { exact: true }) })
    .locator('.value');

const NAV = [
  'Overview',
  'First pipe',
  'Connect a sender',
  'Bots',
  'Directory',
  'Pipes',
  'Deliveries',
  'Queues',
];

describe('the overview', () => {
  it('refreshes its numbers on its own and lists the worker process', async () => {
    const opened = await openPage(browser);
    const { context, page } = opened;
    await signedIn(page, stack);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByText(/refreshes every 5 s/).waitFor();

    // One worker process, the stack's own.
    const workers = page.getByRole('table', { name: 'Worker processes' });
    await expect.poll(() => workers.getByRole('row').count(), { timeout: 20_000 }).toBe(2);
    expect(await workers.getByRole('cell').nth(1).textContent()).toBe(String(stack.worker.child.pid));
    await workers.getByText(/s ago$/).waitFor();

    await expect.poll(() => stat(page, 'Sent').textContent()).toBe('0');
    expect(await stat(page, 'Failed (for good)').textContent()).toBe('0');
    await page.getByText('No dead letters.').waitFor();
    // Marks this document: a reload would lose the mark.
    await page.evaluate('window.__sameDocument = true');

    for (let i = 1; i <= 3; i++) await sendThroughPipe(open.url, { content: `Deploy **v1.${i}** done` });
    await sendThroughPipe(locked.url, { content: 'Audit entry' });

    // The numbers follow on the page's own refresh, without a reload.
    await expect.poll(() => stat(page, 'Sent').textContent(), { timeout: 30_000 }).toBe('3');
    await expect.poll(() => stat(page, 'Failed (for good)').textContent(), { timeout: 30_000 }).toBe('1');
    const dead = page.getByRole('table', { name: 'Dead letters by reason' });
    await expect
      .poll(() => dead.getByRole('row').filter({ hasText: 'NO_SEND_PERMISSION' }).textContent(), {
        timeout: 30_000,
      })
      .toBe('NO_SEND_PERMISSION1');
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    await page.getByRole('img', { name: /3 sent, 0 retried, 1 failed/ }).waitFor();
    // docs/images/console-overview.png (in the README) is a copy of this one.
    await screenshot(page, 'overview-refreshed');

    await expectSecurePage(opened, [stack.adminToken, open.botToken, open.pipeToken, locked.pipeToken]);
    await context.close();
  }, 90_000);

  it('fits a phone: no sideways scrolling on the overview and deliveries, every nav link in view', async () => {
    const opened = await openPage(browser, { width: 375, height: 740 });
    const { context, page } = opened;
    await signedIn(page, stack);
    await page.getByRole('heading', { name: 'Worker processes' }).waitFor();
    await page
      .getByRole('table', { name: 'Dead letters by reason' })
      .getByText('NO_SEND_PERMISSION')
      .waitFor();
    expect(await overflowsSideways(page)).toBeNull();

    // Every nav link lies within the screen's width, no scrolling needed to find it.
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    for (const name of NAV) {
      const link = nav.getByRole('link', { name, exact: true });
      expect(await link.isVisible()).toBe(true);
      const box = await link.boundingBox();
      expect(box, name).not.toBeNull();
      expect(box!.x, name).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width, name).toBeLessThanOrEqual(375);
    }
    await screenshot(page, 'overview-phone');

    await nav.getByRole('link', { name: 'Deliveries', exact: true }).click();
    await page.getByRole('heading', { name: 'Deliveries', level: 1 }).waitFor();
    await expect.poll(() => page.getByRole('row').count(), { timeout: 20_000 }).toBe(5);
    // The wide table scrolls inside its own box, not the page.
    expect(await overflowsSideways(page)).toBeNull();
    await screenshot(page, 'deliveries-phone');

    await expectSecurePage(opened, [stack.adminToken]);
    await context.close();
  }, 90_000);
});
