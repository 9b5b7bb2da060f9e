/*
 * Verified senders (issue 20; docs/pipes.md "Verified senders"): the signature schemes a pipe may
 * require, and their fixed parameters.
 *
 * - `github`: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>` (GitHub's webhook
 *   secret is the key, as UTF-8).
 * - `gitlab`: `X-Gitlab-Token: <the secret token>`, compared in constant time (GitLab sends the
 *   token itself; only its SHA-256 is stored). GitLab's signed webhooks (a "signing token") follow
 *   the Standard Webhooks scheme: use `standard-webhooks` for them.
 * - `standard-webhooks`: `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`
 *   over `<id>.<timestamp>.<body>`, the key being the base64 after `whsec_` (or `v1a,<base64>`,
 *   an ed25519 signature checked with the sender's public key `whpk_...`); a timestamp more
 *   than SIGNATURE_TOLERANCE_S away from the clock is refused, and a webhook-id seen before is
 *   answered as a duplicate (the pipe's idempotency claim, ingest.ts).
 * - `hmac-sha256`: an HMAC-SHA256 of the body in a header the operator names, hex or base64,
 *   after an optional prefix such as `sha256=`.
 */

export const SIGNATURE_SCHEMES = ['none', 'github', 'gitlab', 'standard-webhooks', 'hmac-sha256'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];
export type SignedScheme = Exclude<SignatureScheme, 'none'>;

export const HMAC_ENCODINGS = ['hex', 'base64'] as const;
export type HmacEncoding = (typeof HMAC_ENCODINGS)[number];

/** How far webhook-timestamp may be from the server's clock, either way, in seconds (the spec's 5 minutes). */
export const SIGNATURE_TOLERANCE_S = 300;

/** How long a rotated-out secret keeps verifying unless the rotation says otherwise, in seconds (24 h). */
export const DEFAULT_ROTATION_OVERLAP_S = 24 * 60 * 60;
/** Longest overlap a rotation may ask for, in seconds (30 days). */
export const MAX_ROTATION_OVERLAP_S = 30 * 24 * 60 * 60;

export const GITHUB_SIGNATURE_HEADER = 'x-hub-signature-256';
export const GITHUB_SIGNATURE_PREFIX = 'sha256=';
export const GITLAB_TOKEN_HEADER = 'x-gitlab-token';
export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
/** Standard Webhooks' secret serialization: `whsec_` and the key in base64. */
export const WHSEC_PREFIX = 'whsec_';
/** Standard Webhooks' public key serialization (v1a, ed25519): `whpk_` and the 32-byte key in base64. */
export const WHPK_PREFIX = 'whpk_';
export const ED25519_PUBLIC_KEY_BYTES = 32;

/** The Standard Webhooks key sizes, in bytes: the spec's 24 to 64 (GitLab takes exactly 32). */
export const WHSEC_MIN_BYTES = 24;
export const WHSEC_MAX_BYTES = 64;
/** Bytes of a key Herald generates (256 bits; what GitLab's signing token requires). */
export const GENERATED_KEY_BYTES = 32;
/** Shortest and longest secret an operator may set for the other schemes, in characters. */
export const MIN_SECRET_LENGTH = 16;
export const MAX_SECRET_LENGTH = 256;

/** What an operator asks for on create or pipe/set-signature. */
export interface SignatureInput {
  readonly scheme: SignatureScheme;
  /** Absent: Herald generates one. */
  readonly secret?: string;
  /** hmac-sha256 only. */
  readonly header?: string;
  readonly encoding?: HmacEncoding;
  readonly prefix?: string;
}

/** Whether the scheme keeps its secret sealed (an HMAC key) rather than hashed (a shared token). */
export const sealsItsSecret = (scheme: SignedScheme): boolean => scheme !== 'gitlab';

/** The header a sender is told to sign in, for a refusal's message. */
export function signatureHeaderName(scheme: SignedScheme, header: string | null): string {
  switch (scheme) {
    case 'github':
      return 'X-Hub-Signature-256';
    case 'gitlab':
      return 'X-Gitlab-Token';
    case 'standard-webhooks':
      return 'webhook-signature';
    case 'hmac-sha256':
      return header ?? '';
  }
}
