import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectSecurePage, openPage, type Stack, screenshot, signedIn, useStack } from './stack.js';

/*
 * The template editor in the console as built: styled under the console's CSP (CodeMirror's
 * run-time styles go into a constructed stylesheet of the editor's shadow root, never a <style>
 * element, which `style-src 'self'` refuses), Twig highlighted over the format, completion of
 * `data.` paths from the test data and of filters, and the test data's JSON errors marked.
 * What needs the studio's render endpoint (preview, server error markers) is in the studio journeys.
 */
let stack: Stack;
let browser: Browser;
useStack('browser_template_editor', (s, b) => {
  [stack, browser] = [s, b];
});

describe('the template editor', () => {
  it('is styled under the CSP, highlights Twig, completes data paths and filters, and marks bad test data', async () => {
    const { bot, token } = await stack.admin<{ bot: { id: string }; token: string }>(
      'POST',
      '/admin/api/bot/create',
      { name: 'Editor Bot' },
    );
    const opened = await openPage(browser);
    const { context, page } = opened;
    await signedIn(page, stack);
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.goto(`${stack.baseUrl}/console/templates/new?bot_id=${bot.id}`);
    const template = page.getByRole('textbox', { name: 'Template', exact: true });
    const testData = page.getByRole('textbox', { name: 'Test data (JSON)' });
    await template.waitFor();
    await testData.waitFor();

    // Styled: CodeMirror's own rules apply (they make the editor a flex box and draw the gutter).
    // (Expressions, as this project's tests are compiled without the DOM's types.)
    const inFirstEditor = (body: string) =>
      page.evaluate(`(() => { const root = document.querySelector('.code-editor').shadowRoot; ${body} })()`);
    const computed = (selector: string, property: string) =>
      inFirstEditor(`return getComputedStyle(root.querySelector('${selector}')).${property};`);
    expect(await computed('.cm-editor', 'display')).toBe('flex');
    expect(await computed('.cm-gutters', 'display')).toBe('flex');
    expect(await inFirstEditor('return root.adoptedStyleSheets.length;')).toBeGreaterThan(0);
    // No <style> element anywhere: the CSP would refuse it.
    expect(await page.evaluate<number>("document.querySelectorAll('style').length")).toBe(0);
    // Twig over KMarkdown: the delimiters of the starter template carry the Twig colour.
    await page.locator('.cm-twig-delimiter').first().waitFor();
    expect(await computed('.cm-twig-delimiter', 'color')).toBe('rgb(109, 40, 217)');

    // data. completes from the test data, filters after |.
    await template.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('Hi {{ data.');
    const options = page.locator('.cm-tooltip-autocomplete .cm-completionLabel');
    await expect.poll(() => options.allTextContents()).toEqual(['text', 'title']);
    // Picked with the mouse: CodeMirror ignores Enter for a moment after the list opens.
    await options.filter({ hasText: 'title' }).click();
    await page.keyboard.type('|json_e');
    await expect.poll(() => options.allTextContents()).toContain('json_escape');
    await options.filter({ hasText: 'json_escape' }).click();
    await expect.poll(() => template.textContent()).toBe('Hi {{ data.title|json_escape}}');

    // The test data broken: marked in its editor, with the place, and the preview waits.
    await testData.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('{\n"title": x');
    // (The editor closes the brace and indents the new line: the x is at column 12.)
    await page
      .getByText("The test data is not valid JSON (line 2, column 12): Unexpected token 'x'")
      .waitFor();
    await page.getByText('The preview renders again once the test data is fixed.').waitFor();
    await expect.poll(() => page.locator('.cm-lintRange-error').allTextContents()).toEqual(['x']);

    await screenshot(page, 'template-editor');
    await expectSecurePage(opened, [stack.adminToken, token]);
    await context.close();
  });
});
