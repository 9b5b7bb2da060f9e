import {
  createHmac,
  createPublicKey,
  createSecretKey,
  hash,
  type KeyObject,
  timingSafeEqual,
  verify as verifySigned,
} from 'node:crypto';
import type { StoredSignature } from '../../../store/index.js';
import type { RequestHeaders } from '../captures.js';
import {
  GITHUB_SIGNATURE_HEADER,
  GITHUB_SIGNATURE_PREFIX,
  GITLAB_TOKEN_HEADER,
  type HmacEncoding,
  SIGNATURE_SCHEMES,
  SIGNATURE_TOLERANCE_S,
  type SignedScheme,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from './schemes.js';
import { type SecretBox, SecretUnreadableError } from './secret-box.js';
import { sealContext } from './secrets.js';

/*
 * Checking a request's signature on the hot path, with node:crypto: one HMAC-SHA256 of the raw
 * body per live secret (two inside a rotation's overlap), compared in constant time with
 * timingSafeEqual on the decoded digests (or, for a sender's ed25519 public key, crypto.verify). The schemes' own packages are held to the same
 * answers in test/domain/pipe-signatures.test.ts; why the door does not call them is in
 * docs/pipes.md (`npm run bench:signatures`).
 *
 * Keys live as KeyObjects: their bytes are held by OpenSSL, outside the JavaScript heap, so a
 * heap snapshot does not show them (the decrypted bytes are zeroed once the KeyObject holds them).
 */

/** One secret as the door uses it. */
interface LiveSecret {
  /** The HMAC key; null for a hashed token or a public key. */
  readonly key: KeyObject | null;
  /** A sender's ed25519 public key (Standard Webhooks v1a); null otherwise. */
  readonly publicKey: KeyObject | null;
  /** SHA-256 of a shared token; null for an HMAC key. */
  readonly hash: Buffer | null;
  /** When it stops verifying (ms since the epoch); null: the current secret. */
  readonly expiresAt: number | null;
}

/** A pipe's signature setting, opened for verifying (kept in the pipe cache). */
export interface SignatureCheck {
  readonly scheme: SignedScheme;
  /** hmac-sha256: the header (lower case), its encoding and prefix. */
  readonly header: string | null;
  readonly encoding: HmacEncoding;
  readonly prefix: string;
  readonly secrets: readonly LiveSecret[];
  /** Why the secrets could not be opened (no key id or key material, never a secret); null when they were. */
  readonly unreadable: string | null;
}

/** Opens a stored setting for verifying; null for an unsigned pipe. Never throws. */
export function openSignatureCheck(
  stored: StoredSignature | null,
  pipeId: string,
  box: SecretBox,
): SignatureCheck | null {
  if (stored === null) return null;
  const secrets: LiveSecret[] = [];
  let unreadable: string | null = null;
  for (const s of stored.secrets) {
    if (s.hash !== null) {
      secrets.push({ key: null, publicKey: null, hash: Buffer.from(s.hash, 'hex'), expiresAt: s.expires_at });
    } else if (s.public_key !== null) {
      try {
        const x = Buffer.from(s.public_key, 'base64').toString('base64url');
        const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
        secrets.push({ key: null, publicKey, hash: null, expiresAt: s.expires_at });
      } catch {
        unreadable = 'the stored public key is not an ed25519 key';
      }
    } else if (s.sealed !== null) {
      try {
        const bytes = box.open(s.sealed, sealContext(pipeId));
        secrets.push({ key: createSecretKey(bytes), publicKey: null, hash: null, expiresAt: s.expires_at });
        bytes.fill(0);
      } catch (err) {
        unreadable = err instanceof SecretUnreadableError ? err.message : 'the secret could not be opened';
      }
    }
  }
  if (secrets.length === 0 && unreadable === null) unreadable = 'the pipe has no signing secret';
  // A scheme this version does not know (written by a newer one) verifies nothing: refused, not let through.
  const known = (SIGNATURE_SCHEMES as readonly string[]).includes(stored.scheme) && stored.scheme !== 'none';
  if (!known) unreadable = `unknown signature scheme ${JSON.stringify(stored.scheme.slice(0, 40))}`;
  return {
    scheme: stored.scheme as SignedScheme,
    header: stored.header,
    encoding: stored.encoding === 'base64' ? 'base64' : 'hex',
    prefix: stored.prefix ?? '',
    secrets,
    unreadable,
  };
}

/** What a request offers to be verified. */
export interface SignedRequest {
  readonly headers: RequestHeaders;
  /**
   * The body's bytes as they arrived (before Content-Encoding is undone), when they may differ
   * from `decoded`; null for a JSON body sent as it is (whose bytes are `decoded`, after a
   * byte-order mark if it had one) or one too large to keep.
   */
  readonly wire: Buffer | null;
  /** The body's bytes as read (decompressed, without a byte-order mark). */
  readonly decoded: Buffer;
  /** The server's clock, in ms. */
  readonly now: number;
}

export type SignatureOutcome = 'ok' | 'missing' | 'invalid' | 'expired';

export interface SignatureResult {
  readonly outcome: SignatureOutcome;
  /** standard-webhooks: the verified webhook-id (covered by the signature), for de-duplication. */
  readonly webhookId: string | null;
  /** `missing` of a scheme that signs in several headers: the one that was not sent. */
  readonly missingHeader?: string;
}

const OK: SignatureResult = { outcome: 'ok', webhookId: null };
const MISSING: SignatureResult = { outcome: 'missing', webhookId: null };
const INVALID: SignatureResult = { outcome: 'invalid', webhookId: null };
const EXPIRED: SignatureResult = { outcome: 'expired', webhookId: null };

const DIGEST_BYTES = 32;
const ED25519_SIGNATURE_BYTES = 64;
// 64 bytes are 86 base64 characters and two '=' of padding (optional here).
const BASE64_ED25519 = /^[A-Za-z0-9+/]{86}(?:==)?$/;
const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;
// 32 bytes are 43 base64 characters and one '=' of padding (optional here).
const BASE64_DIGEST = /^[A-Za-z0-9+/]{43}=?$/;
const TIMESTAMP = /^\d{1,15}$/;
// As an Idempotency-Key: visible ASCII, at most 255 (ids from Svix, GitLab and others fit).
const WEBHOOK_ID = /^[\x21-\x7e]{1,255}$/;

function headerOf(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name];
  return value === undefined ? undefined : typeof value === 'string' ? value : value.join(', ');
}

/** The digest a header carries, or null when it is not one (wrong length or alphabet). */
function decodeDigest(text: string, encoding: HmacEncoding): Buffer | null {
  if (encoding === 'hex') return HEX_DIGEST.test(text) ? Buffer.from(text, 'hex') : null;
  return BASE64_DIGEST.test(text) ? Buffer.from(text, 'base64') : null;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Whether a secret verifies at `now`: the current one, or one rotated out whose overlap has not ended. */
const isLive = (s: LiveSecret, now: number): boolean => s.expiresAt === null || now < s.expiresAt;

/** What a request's signature header offers: HMAC digests, and ed25519 signatures (Standard Webhooks v1a). */
interface Given {
  readonly digests: readonly Buffer[];
  readonly signatures: readonly Buffer[];
}

/**
 * Whether some live key signed `prefix`, `lead` and `body`: its HMAC equals one of the given
 * digests (constant time), or a public key verifies one of the given ed25519 signatures.
 */
function signedBy(
  check: SignatureCheck,
  now: number,
  given: Given,
  prefix: string | null,
  lead: Buffer | null,
  body: Buffer,
): boolean {
  for (const s of check.secrets) {
    if (!isLive(s, now)) continue;
    if (s.key !== null && given.digests.length > 0) {
      const h = createHmac('sha256', s.key);
      if (prefix !== null) h.update(prefix);
      if (lead !== null) h.update(lead);
      const digest = h.update(body).digest();
      for (const g of given.digests) if (timingSafeEqual(g, digest)) return true;
    }
    if (s.publicKey !== null && given.signatures.length > 0) {
      const data = Buffer.concat([Buffer.from(prefix ?? ''), lead ?? Buffer.alloc(0), body]);
      for (const g of given.signatures) if (verifySigned(null, data, s.publicKey, g)) return true;
    }
  }
  return false;
}

/**
 * Whether the signature covers the body as the sender sent it. A JSON body sent as it is was
 * `decoded`, or a byte-order mark and `decoded` (the reader drops the mark); another is `wire` as
 * it arrived or, for senders that sign before compressing, `decoded`. The likeliest form is
 * tried first, the others only when it fails.
 */
function bodyMatches(req: SignedRequest, check: SignatureCheck, given: Given, prefix: string | null) {
  const { wire, decoded, now } = req;
  if (wire !== null && signedBy(check, now, given, prefix, null, wire)) return true;
  return (
    signedBy(check, now, given, prefix, null, decoded) || signedBy(check, now, given, prefix, BOM, decoded)
  );
}

function verifyBodyHmac(
  check: SignatureCheck,
  req: SignedRequest,
  header: string,
  prefix: string,
  encoding: HmacEncoding,
): SignatureResult {
  const value = headerOf(req.headers, header);
  if (value === undefined || value === '') return MISSING;
  if (!value.startsWith(prefix)) return INVALID;
  const digest = decodeDigest(value.slice(prefix.length), encoding);
  if (digest === null) return INVALID;
  return bodyMatches(req, check, { digests: [digest], signatures: [] }, null) ? OK : INVALID;
}

function verifyGitlabToken(check: SignatureCheck, req: SignedRequest): SignatureResult {
  const token = headerOf(req.headers, GITLAB_TOKEN_HEADER);
  if (token === undefined || token === '') return MISSING;
  // Hashing first makes both sides 32 bytes, so the comparison's time says nothing of the token.
  const given = hash('sha256', token, 'buffer');
  for (const s of check.secrets) {
    if (s.hash !== null && isLive(s, req.now) && timingSafeEqual(given, s.hash)) return OK;
  }
  return INVALID;
}

function verifyStandardWebhook(check: SignatureCheck, req: SignedRequest): SignatureResult {
  const id = headerOf(req.headers, WEBHOOK_ID_HEADER);
  const timestamp = headerOf(req.headers, WEBHOOK_TIMESTAMP_HEADER);
  const signatures = headerOf(req.headers, WEBHOOK_SIGNATURE_HEADER);
  if (!id || !timestamp || !signatures) {
    const absent = !signatures
      ? WEBHOOK_SIGNATURE_HEADER
      : !id
        ? WEBHOOK_ID_HEADER
        : WEBHOOK_TIMESTAMP_HEADER;
    return { ...MISSING, missingHeader: absent };
  }
  if (!WEBHOOK_ID.test(id) || !TIMESTAMP.test(timestamp)) return INVALID;
  // A space-separated list (the sender signs with each of its secrets while it rotates them):
  // `v1,<HMAC-SHA256>` and `v1a,<ed25519 signature>`; other versions are passed over.
  const digests: Buffer[] = [];
  const signed: Buffer[] = [];
  for (const entry of signatures.split(' ')) {
    if (entry.startsWith('v1,')) {
      const digest = decodeDigest(entry.slice(3), 'base64');
      if (digest !== null && digest.length === DIGEST_BYTES) digests.push(digest);
    } else if (entry.startsWith('v1a,') && BASE64_ED25519.test(entry.slice(4))) {
      const sig = Buffer.from(entry.slice(4), 'base64');
      if (sig.length === ED25519_SIGNATURE_BYTES) signed.push(sig);
    }
  }
  if (digests.length + signed.length === 0) return INVALID;
  const given = { digests, signatures: signed };
  if (!bodyMatches(req, check, given, `${id}.${timestamp}.`)) return INVALID;
  // Checked after the signature, so that `expired` means a genuine request that is too old or
  // too new (a replay, or a sender's clock off), not any forgery.
  const nowS = Math.floor(req.now / 1000);
  if (Math.abs(nowS - Number(timestamp)) > SIGNATURE_TOLERANCE_S) return EXPIRED;
  return { outcome: 'ok', webhookId: id };
}

/** Verifies a request against an opened setting whose secrets are readable. */
export function verifySignature(check: SignatureCheck, req: SignedRequest): SignatureResult {
  switch (check.scheme) {
    case 'github':
      return verifyBodyHmac(check, req, GITHUB_SIGNATURE_HEADER, GITHUB_SIGNATURE_PREFIX, 'hex');
    case 'gitlab':
      return verifyGitlabToken(check, req);
    case 'standard-webhooks':
      return verifyStandardWebhook(check, req);
    case 'hmac-sha256':
      return verifyBodyHmac(check, req, check.header ?? '', check.prefix, check.encoding);
  }
}
