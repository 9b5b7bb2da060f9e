import type { Context } from 'koa';

/** The console's session cookie (docs/console.md), over plain HTTP. */
export const SESSION_COOKIE = 'herald_console';
/**
 * Its name when Secure. A browser takes a `__Host-` cookie only with Secure, Path=/ and no
 * Domain, so a sibling subdomain cannot set one of this name to overwrite or shadow ours.
 */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;
/** A cookie value as made by session-store.ts: 32 random bytes in base64url. */
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

const nameOf = (secure: boolean): string => (secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE);

/** The session cookie under the name that applies (only that one: with Secure, the other could be a sibling's). */
export function readSessionCookie(ctx: Context, secure: boolean): string | undefined {
  const value = ctx.cookies.get(nameOf(secure), { signed: false });
  return value !== undefined && COOKIE_VALUE.test(value) ? value : undefined;
}

/*
 * Written by hand rather than with ctx.cookies.set: that refuses a Secure cookie on a plain
 * connection, which is what Herald sees behind a proxy that ends TLS. No Max-Age: the cookie
 * goes with the browser session; the server's idle expiry decides how long it is honoured.
 * No Domain, ever: a __Host- cookie must not have one.
 */
const attributes = (secure: boolean): string =>
  `Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;

export function setSessionCookie(ctx: Context, value: string, secure: boolean): void {
  ctx.append('Set-Cookie', `${nameOf(secure)}=${value}; ${attributes(secure)}`);
}

export function clearSessionCookie(ctx: Context, secure: boolean): void {
  ctx.append('Set-Cookie', `${nameOf(secure)}=; Max-Age=0; ${attributes(secure)}`);
}
