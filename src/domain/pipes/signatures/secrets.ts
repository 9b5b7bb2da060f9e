import { randomBytes } from 'node:crypto';
import { HeraldError, ValidationError } from '../../../errors/index.js';
import type { StoredSigningSecret } from '../../../store/index.js';
import { hashToken } from '../../tokens.js';
import {
  GENERATED_KEY_BYTES,
  MAX_SECRET_LENGTH,
  MIN_SECRET_LENGTH,
  type SignedScheme,
  sealsItsSecret,
  WHSEC_MAX_BYTES,
  WHSEC_MIN_BYTES,
  WHSEC_PREFIX,
} from './schemes.js';
import type { SecretBox } from './secret-box.js';

/*
 * Signing secrets: generated (256 random bits) or set by the operator, shown once, then kept
 * only sealed (an HMAC key must be read back to verify) or as a SHA-256 (GitLab's token, which
 * the sender sends as it is).
 */

/** A new secret in the form the scheme's senders take. */
export function generateSecret(scheme: SignedScheme): string {
  const key = randomBytes(GENERATED_KEY_BYTES);
  return scheme === 'standard-webhooks'
    ? `${WHSEC_PREFIX}${key.toString('base64')}`
    : key.toString('base64url');
}

const WHSEC = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/** An operator's secret is one the scheme can use; throws a ValidationError naming `field` otherwise. */
export function checkSecret(scheme: SignedScheme, secret: string, field = 'secret'): void {
  if (scheme === 'standard-webhooks') {
    const m = WHSEC.exec(secret);
    const bytes = m ? Buffer.from(m[1] as string, 'base64').length : 0;
    if (bytes < WHSEC_MIN_BYTES || bytes > WHSEC_MAX_BYTES) {
      throw new ValidationError(field, {
        'zh-CN': `必须是 whsec_ 加 ${WHSEC_MIN_BYTES} 到 ${WHSEC_MAX_BYTES} 字节密钥的 base64`,
        'en-US': `must be whsec_ followed by the base64 of a ${WHSEC_MIN_BYTES}- to ${WHSEC_MAX_BYTES}-byte key`,
      });
    }
    return;
  }
  // Control characters could not travel in a header (GitLab's token) and are a paste error elsewhere.
  if (secret.length < MIN_SECRET_LENGTH || secret.length > MAX_SECRET_LENGTH || /\p{Cc}/u.test(secret)) {
    throw new ValidationError(field, {
      'zh-CN': `必须是 ${MIN_SECRET_LENGTH} 到 ${MAX_SECRET_LENGTH} 个字符，且不含控制字符`,
      'en-US': `must be ${MIN_SECRET_LENGTH} to ${MAX_SECRET_LENGTH} characters without control characters`,
    });
  }
}

/** The HMAC key a secret stands for: the base64 after `whsec_`, or the secret's UTF-8 bytes. */
export function hmacKeyOf(scheme: SignedScheme, secret: string): Buffer {
  return scheme === 'standard-webhooks'
    ? Buffer.from(secret.slice(WHSEC_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

/** What a sealed secret is bound to: its pipe (secret-box.ts). */
export const sealContext = (pipeId: string): string => `pipe signing secret ${pipeId}`;

/** SHA-256 (hex) of a shared token, as stored: the same hash as pipe and bot tokens. */
export const tokenHashOf = hashToken;

/**
 * The stored form of a secret: sealed, or hashed for GitLab's token. 409 when the scheme must
 * seal it and SECRETS_KEY is not set.
 */
export function storeSecret(
  box: SecretBox,
  pipeId: string,
  scheme: SignedScheme,
  secret: string,
  now: number,
): StoredSigningSecret {
  if (!sealsItsSecret(scheme))
    return { sealed: null, hash: tokenHashOf(secret), created_at: now, expires_at: null };
  if (!box.canSeal) throw new HeraldError('PIPE_SECRETS_KEY_MISSING', { scheme });
  const key = hmacKeyOf(scheme, secret);
  const sealed = box.seal(key, sealContext(pipeId));
  key.fill(0);
  return { sealed, hash: null, created_at: now, expires_at: null };
}
