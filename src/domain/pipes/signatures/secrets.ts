import { randomBytes } from 'node:crypto';
import { HeraldError, ValidationError } from '../../../errors/index.js';
import type { StoredSigningSecret } from '../../../store/index.js';
import { hashToken } from '../../tokens.js';
import {
  ED25519_PUBLIC_KEY_BYTES,
  GENERATED_KEY_BYTES,
  MAX_SECRET_LENGTH,
  MIN_SECRET_LENGTH,
  type SignedScheme,
  sealsItsSecret,
  WHPK_PREFIX,
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
const WHPK = /^whpk_([A-Za-z0-9+/]+={0,2})$/;

/** The raw ed25519 public key of a `whpk_` key (Standard Webhooks v1a), or null for anything else. */
export function publicKeyOf(scheme: SignedScheme, secret: string): Buffer | null {
  if (scheme !== 'standard-webhooks') return null;
  const m = WHPK.exec(secret);
  if (!m) return null;
  const key = Buffer.from(m[1] as string, 'base64');
  return key.length === ED25519_PUBLIC_KEY_BYTES ? key : null;
}

/** An operator's secret is one the scheme can use; throws a ValidationError naming `field` otherwise. */
export function checkSecret(scheme: SignedScheme, secret: string, field = 'secret'): void {
  if (scheme === 'standard-webhooks') {
    if (secret.startsWith(WHPK_PREFIX)) {
      if (publicKeyOf(scheme, secret) !== null) return;
      throw new ValidationError(field, {
        'zh-CN': `公钥必须是 whpk_ 加 ${ED25519_PUBLIC_KEY_BYTES} 字节 ed25519 公钥的 base64`,
        'en-US': `a public key must be whpk_ followed by the base64 of a ${ED25519_PUBLIC_KEY_BYTES}-byte ed25519 key`,
      });
    }
    const m = WHSEC.exec(secret);
    const bytes = m ? Buffer.from(m[1] as string, 'base64').length : 0;
    if (bytes < WHSEC_MIN_BYTES || bytes > WHSEC_MAX_BYTES) {
      throw new ValidationError(field, {
        'zh-CN': `必须是 whsec_ 加 ${WHSEC_MIN_BYTES} 到 ${WHSEC_MAX_BYTES} 字节密钥的 base64`,
        'en-US': `must be whsec_ followed by the base64 of a ${WHSEC_MIN_BYTES}- to ${WHSEC_MAX_BYTES}-byte key, or a whpk_ public key`,
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
 * The stored form of a secret: sealed, hashed for GitLab's token, or as it is for a sender's
 * public key. 409 when the scheme must seal it and SECRETS_KEY is not set.
 */
export function storeSecret(
  box: SecretBox,
  pipeId: string,
  scheme: SignedScheme,
  secret: string,
  now: number,
): StoredSigningSecret {
  if (!sealsItsSecret(scheme))
    return { sealed: null, hash: tokenHashOf(secret), public_key: null, created_at: now, expires_at: null };
  const publicKey = publicKeyOf(scheme, secret);
  if (publicKey !== null) {
    return {
      sealed: null,
      hash: null,
      public_key: publicKey.toString('base64'),
      created_at: now,
      expires_at: null,
    };
  }
  if (!box.canSeal) throw new HeraldError('PIPE_SECRETS_KEY_MISSING', { scheme });
  const key = hmacKeyOf(scheme, secret);
  const sealed = box.seal(key, sealContext(pipeId));
  key.fill(0);
  return { sealed, hash: null, public_key: null, created_at: now, expires_at: null };
}
