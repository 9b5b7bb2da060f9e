import { createHash } from 'node:crypto';

/** Where the console lives; every answer under it carries SECURITY_HEADERS. */
export const CONSOLE_PATH = '/console';

/** Compared lower-cased, as the router matches paths case-insensitively (`/CONSOLE/api/...`). */
export const isConsolePath = (path: string): boolean => isUnder(path, CONSOLE_PATH);

/** Whether `path` is `base` or below it, ignoring case. */
export function isUnder(path: string, base: string): boolean {
  const p = path.toLowerCase();
  return p === base || p.startsWith(`${base}/`);
}

/** The console's Content-Security-Policy; `scriptHashes` admit exactly those inline scripts. */
export function contentSecurityPolicy(
  scriptHashes: readonly string[] = [],
  options: { readonly baseUri?: string } = {},
): string {
  const scripts = ["'self'", ...scriptHashes.map((h) => `'${h}'`)].join(' ');
  return [
    "default-src 'self'",
    `script-src ${scripts}`,
    "style-src 'self'",
    "img-src 'self' data: https:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    `base-uri ${options.baseUri ?? "'none'"}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** On every /console answer, errors and answers given before Koa included. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': contentSecurityPolicy(),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

/** Script types a browser runs; others (application/json data blocks) are not subject to CSP. */
const RUNNABLE_TYPE = /^(|text\/javascript|application\/javascript|module)$/i;
const SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;

/**
 * The CSP source expressions (`sha256-<base64>`) of a page's inline scripts, so that a page we do
 * not write (bull-board's) can run under the strict policy without 'unsafe-inline'.
 */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const m of html.matchAll(SCRIPT)) {
    const attrs = m[1] ?? '';
    if (/\bsrc\s*=/i.test(attrs)) continue;
    const type = /\btype\s*=\s*["']?([^"'\s>]*)/i.exec(attrs)?.[1] ?? '';
    if (!RUNNABLE_TYPE.test(type.trim())) continue;
    hashes.add(
      `sha256-${createHash('sha256')
        .update(m[2] ?? '', 'utf8')
        .digest('base64')}`,
    );
  }
  return [...hashes];
}
