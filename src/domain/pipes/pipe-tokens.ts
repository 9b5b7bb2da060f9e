import { hashToken, type IssuedToken, issueToken, tokenMatches, tokenOwner } from '../tokens.js';

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

export const pipeTokenMatches = (token: string, storedHash: string): boolean =>
  tokenMatches(token, storedHash);

export { hashToken };
