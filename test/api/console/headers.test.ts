import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  contentSecurityPolicy,
  inlineScriptHashes,
  isConsolePath,
} from '../../../src/api/console/headers.js';
import { boardPolicy } from '../../../src/api/console/queues.js';
import { assetPath } from '../../../src/api/console/static.js';

const sha = (s: string): string => `sha256-${createHash('sha256').update(s).digest('base64')}`;

describe('inlineScriptHashes', () => {
  it('hashes the inline scripts a browser runs, exactly as written', () => {
    const html =
      '<script>window.a = 1;</script>\n<SCRIPT type="module">\n import "x";\n</SCRIPT>' +
      '<script type="text/javascript">b()</script><script>window.a = 1;</script>';
    expect(inlineScriptHashes(html)).toEqual([sha('window.a = 1;'), sha('\n import "x";\n'), sha('b()')]);
  });

  it('skips scripts with a src and data blocks a browser does not run', () => {
    const html =
      '<script defer src="static/js/main.js"></script>' +
      '<script id="__UI_CONFIG__" type="application/json">{"a":1}</script>' +
      '<script type="importmap">{}</script>';
    expect(inlineScriptHashes(html)).toEqual([]);
  });

  it("puts them in script-src, never 'unsafe-inline'", () => {
    const csp = boardPolicy('<script>go()</script>');
    expect(csp).toContain(`script-src 'self' '${sha('go()')}';`);
    expect(csp).toContain("base-uri 'self'");
    expect(csp).not.toContain('unsafe');
    expect(contentSecurityPolicy()).toContain("script-src 'self'; style-src 'self';");
    expect(contentSecurityPolicy()).toContain("base-uri 'none'");
  });
});

describe('isConsolePath', () => {
  it.each([
    ['/console', true],
    ['/console/', true],
    ['/console/queues/x', true],
    ['/consoles', false],
    ['/admin/console', false],
    // The router matches paths case-insensitively, so the headers must too.
    ['/CONSOLE', true],
    ['/Console/api/session', true],
    ['/CONSOLES', false],
  ])('%s: %s', (path, yes) => expect(isConsolePath(path)).toBe(yes));
});

describe('assetPath', () => {
  const dir = '/srv/console/assets';
  it.each([
    ['app-1.js', '/srv/console/assets/app-1.js'],
    ['sub/app-1.js', '/srv/console/assets/sub/app-1.js'],
    ['a%20b.js', '/srv/console/assets/a b.js'],
    ['..', undefined],
    ['../index.html', undefined],
    ['..%2findex.html', undefined],
    ['%2e%2e/%2e%2e/etc/passwd', undefined],
    ['/etc/passwd', undefined],
    ['%2fetc%2fpasswd', undefined],
    ['..%5cindex.html', undefined],
    ['../assets-other/x.js', undefined],
    ['a%00.js', undefined],
    ['%E0%A4%A', undefined],
    ['', undefined],
  ])('%s -> %s', (name, expected) => expect(assetPath(dir, name)).toBe(expected));
});
