import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectSecurePage, openPage, type Stack, screenshot, seedPipe, signedIn, useStack } from './stack.js';

/* A pipe's captured payloads in the console: listed, opened, cleared, and capturing turned off. */
let stack: Stack;
let browser: Browser;
useStack('browser_pipe_captures', (s, b) => {
  [stack, browser] = [s, b];
});

/** Posts a body through the pipe URL with a sender's headers, a signature among them. */
async function send(url: string, body: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body,
  });
  const envelope = (await res.json()) as { code: number; message: string; data: { msg_id: string } };
  if (res.status !== 200 || envelope.code !== 0)
    throw new Error(`send-pipemsg: ${res.status} ${envelope.message}`);
  return envelope.data.msg_id;
}

describe("a pipe's captured payloads", () => {
  it('lists what the pipe accepted, newest first, without secrets; clears; and turning capturing off deletes them', async () => {
    const seeded = await seedPipe(stack, { bot: 'Capture bot', guild: 'Acme', channel: 'ci', pipe: 'CI' });
    const signature = `sha256=${'ab'.repeat(32)}`;
    const first = await send(seeded.url, '{"content":"first"}', {
      'X-GitHub-Event': 'push',
      'X-Hub-Signature-256': signature,
      'User-Agent': 'GitHub-Hookshot/abc123',
    });
    const second = await send(seeded.url, '{"content":"second, {not: a brace}"}');

    const opened = await openPage(browser);
    const { context, page } = opened;
    await signedIn(page, stack);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.goto(`${stack.baseUrl}/console/pipes/${encodeURIComponent(seeded.pipe.id)}`);
    await page.getByRole('heading', { name: 'CI', level: 1 }).waitFor();
    const panel = page.getByRole('region', { name: 'Captured payloads' });
    await panel.getByText('Capturing: On').waitFor();
    await panel.getByText('Keeps the last 20 payloads').waitFor();
    await panel.getByText('2 kept, newest first').waitFor();

    // Newest first: the second message's summary comes before the first's.
    const summaries = panel.locator('li.capture summary');
    expect(await summaries.count()).toBe(2);
    await summaries.nth(1).click();
    const older = panel.locator('li.capture').nth(1);
    await older.getByRole('link', { name: first }).waitFor();
    await older.getByText('x-github-event').waitFor();
    await older.getByText('GitHub-Hookshot/abc123').waitFor();
    expect(await older.locator('pre.capture-body').textContent()).toBe('{\n  "content": "first"\n}');
    expect(await older.textContent()).not.toContain('x-hub-signature');
    expect(await page.content()).not.toContain(signature);
    expect(await page.content()).not.toContain(seeded.pipeToken);
    await summaries.nth(0).click();
    const newer = panel.locator('li.capture').nth(0);
    await newer.getByRole('link', { name: second }).waitFor();
    expect(await newer.locator('pre.capture-body').textContent()).toBe(
      '{\n  "content": "second, {not: a brace}"\n}',
    );
    await screenshot(page, 'pipe-captures');

    // Clear asks first, then the list is empty and capturing stays on.
    await panel.getByRole('button', { name: 'Clear' }).click();
    const clearDialog = page.getByRole('dialog', { name: "Clear this pipe's captured payloads?" });
    await clearDialog.getByText('Deletes the payloads kept (2)').waitFor();
    await clearDialog.getByRole('button', { name: 'Clear' }).click();
    await panel.getByText('No payloads captured yet').waitFor();
    expect(await stack.admin('GET', `/admin/api/pipe/captures?id=${seeded.pipe.id}`)).toEqual({ items: [] });

    // A new payload shows on Refresh.
    await send(seeded.url, '{"content":"third"}');
    await panel.getByRole('button', { name: 'Refresh' }).click();
    await panel.getByText('1 kept, newest first').waitFor();

    // Turning capturing off asks first, then deletes what was kept.
    await panel.getByRole('button', { name: 'Turn capturing off' }).click();
    await page
      .getByRole('dialog', { name: 'Turn capturing off for this pipe?' })
      .getByRole('button', { name: 'Turn off and delete' })
      .click();
    await panel.getByText('Capturing is off').waitFor();
    await panel.getByText('Capturing: Off').waitFor();
    const { pipe } = await stack.admin<{ pipe: { capture: boolean } }>(
      'GET',
      `/admin/api/pipe/view?id=${seeded.pipe.id}`,
    );
    expect(pipe.capture).toBe(false);
    expect(await stack.admin('GET', `/admin/api/pipe/captures?id=${seeded.pipe.id}`)).toEqual({ items: [] });

    // And back on.
    await panel.getByRole('button', { name: 'Turn capturing on' }).click();
    await panel.getByText('Capturing: On').waitFor();

    await expectSecurePage(opened, [stack.adminToken, seeded.botToken, seeded.pipeToken]);
    await context.close();
  }, 120_000);
});
