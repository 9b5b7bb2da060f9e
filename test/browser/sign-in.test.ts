import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectSecurePage, openPage, type Stack, screenshot, signIn, useStack } from './stack.js';

/* Journeys of signing in and out, in a real chromium over a real web and worker. */
let stack: Stack;
let browser: Browser;
useStack('browser_sign_in', (s, b) => {
  [stack, browser] = [s, b];
});

describe('signing in', () => {
  it('a wrong token gets a clear message and no session', async () => {
    const opened = await openPage(browser);
    const { context, page } = opened;
    await signIn(page, stack, 'not-the-token');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('That token is not right.');
    expect(await context.cookies()).toEqual([]);
    await screenshot(page, 'sign-in-wrong-token');
    await expectSecurePage(opened, [stack.adminToken]);
    await context.close();
  });

  it('signs in, keeps the session over a reload, signs out', async () => {
    const opened = await openPage(browser);
    const { context, page, urls } = opened;
    await signIn(page, stack);
    await page.getByRole('navigation', { name: 'Main navigation' }).waitFor();
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'herald_console', httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(cookie?.value).not.toContain(stack.adminToken);

    await page.reload();
    await page.getByRole('navigation', { name: 'Main navigation' }).waitFor();
    // Nothing the page keeps holds the token: no storage, no URL.
    const stored = await page.evaluate<string>(
      'JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })',
    );
    expect(stored).not.toContain(stack.adminToken);
    expect(urls.join('\n')).not.toContain(stack.adminToken);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Operator token').waitFor();
    await screenshot(page, 'sign-out');
    // The old cookie no longer opens anything.
    const res = await page.request.get(`${stack.baseUrl}/admin/api/bot/list`);
    expect(res.status()).toBe(401);
    expect(stack.logs()).not.toContain(stack.adminToken);
    await expectSecurePage(opened, [stack.adminToken]);
    await context.close();
  });
});
