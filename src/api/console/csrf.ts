import { createHash, timingSafeEqual } from 'node:crypto';

/** Methods that change state: a cookie-authenticated one must prove it came from the console. */
export const isStateChanging = (method: string): boolean =>
  method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * Whether the X-CSRF-Token header equals the session's token, in constant time: both sides are
 * hashed first so that neither their lengths nor their contents show in the timing.
 */
export function csrfMatches(given: string, expected: string): boolean {
  return given !== '' && timingSafeEqual(digest(given), digest(expected));
}
