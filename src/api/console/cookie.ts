import type { Context } from 'koa';

/** The console's session cookie (docs/console.md). */
export const SESSION_COOKIE = 'herald_console';
/** A cookie value as made by session-store.ts: 32 random bytes in base64url. */
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

export function readSessionCookie(ctx: Context): string | undefined {
  const value = ctx.cookies.get(SESSION_COOKIE, { signed: false });
  return value !== undefined && COOKIE_VALUE.test(value) ? value : undefined;
}

/*
 * Written by hand rather than with ctx.cookies.set: that refuses a Secure cookie on a plain
 * connection, which is what Herald sees behind a proxy that ends TLS. No Max-Age: the cookie
 * goes with the browser session; the server's idle expiry decides how long it is honoured.
 */
const attributes = (secure: boolean): string =>
  `Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;

export function setSessionCookie(ctx: Context, value: string, secure: boolean): void {
  ctx.append('Set-Cookie', `${SESSION_COOKIE}=${value}; ${attributes(secure)}`);
}

export function clearSessionCookie(ctx: Context, secure: boolean): void {
  ctx.append('Set-Cookie', `${SESSION_COOKIE}=; Max-Age=0; ${attributes(secure)}`);
}
