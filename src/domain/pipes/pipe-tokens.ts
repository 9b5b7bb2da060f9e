import { hash, timingSafeEqual } from 'node:crypto';
import { hashToken, type IssuedToken, issueToken, tokenOwner } from '../tokens.js';

/*
 * Pipe access tokens: `hrp_<pipe id>.<43 random base64url characters>` (256 bits of entropy).
 * The `hrp_` prefix lets secret scanners recognise a leaked pipe token (bot tokens are `hrb_`);
 * the pipe id lets the hot path find the pipe without a lookup by secret. Only the SHA-256 of
 * the whole token is stored and compared, in constant time.
 */
export const PIPE_TOKEN_PREFIX = 'hrp_';

export const issuePipeToken = (pipeId: string): IssuedToken => issueToken(PIPE_TOKEN_PREFIX, pipeId);

/** The pipe id a well-formed pipe token names, or null for anything else. */
export const pipeTokenOwner = (token: string): string | null => tokenOwner(PIPE_TOKEN_PREFIX, token);

/**
 * Whether `token` hashes to `storedHash`, compared in constant time: tokenMatches, with the
 * one-shot crypto.hash (no Hash object per request on the hot path).
 */
export function pipeTokenMatches(token: string, storedHash: string): boolean {
  const given = hash('sha256', token, 'buffer');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

export { hashToken };
