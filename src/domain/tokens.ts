import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/*
 * Secret tokens: `<prefix><owner id>.<43 random base64url characters>` (256 bits of entropy).
 * The prefix lets secret scanners recognise a leaked token; the owner id lets us find the
 * owner without a lookup by secret. Only the SHA-256 of the whole token is stored (a slow hash
 * adds nothing for 256-bit random secrets), and hashes are compared in constant time.
 */

export const BOT_TOKEN_PREFIX = 'hrb_';

const SECRET_BYTES = 32;

export interface IssuedToken {
  readonly token: string;
  readonly hash: string;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function issueToken(prefix: string, ownerId: string): IssuedToken {
  const token = `${prefix}${ownerId}.${randomBytes(SECRET_BYTES).toString('base64url')}`;
  return { token, hash: hashToken(token) };
}

/** The owner id a well-formed token names, or null for anything else. */
export function tokenOwner(prefix: string, token: string): string | null {
  if (!token.startsWith(prefix) || token.length > 200) return null;
  const dot = token.indexOf('.', prefix.length);
  if (dot <= prefix.length) return null;
  const owner = token.slice(prefix.length, dot);
  return /^[0-9A-Za-z_-]+$/.test(owner) ? owner : null;
}

export function tokenMatches(token: string, storedHash: string): boolean {
  const a = Buffer.from(hashToken(token), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
