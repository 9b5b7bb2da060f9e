/*
 * How a pipe's signature setting is stored (issue 20, docs/pipes.md "Verified senders"). The
 * secrets are stored sealed (AES-256-GCM, domain/pipes/signatures/secret-box.ts) or, for a
 * scheme that only compares a shared token, as its SHA-256; neither ever leaves the store but
 * through getWithTokenHash, which only authentication and the signature's own changes use.
 */

export interface StoredSigningSecret {
  /** The HMAC key, sealed; null for a hashed token or a public key. */
  readonly sealed: string | null;
  /** SHA-256 (hex) of a shared token; null for a sealed key or a public key. */
  readonly hash: string | null;
  /**
   * Standard Webhooks' asymmetric signatures (v1a): the sender's ed25519 public key, base64 of its
   * 32 bytes. Not a secret (the sender keeps the private key), so kept as it is; null otherwise.
   */
  readonly public_key: string | null;
  readonly created_at: number;
  /** When a rotated-out secret stops verifying (ms); null for the current one. */
  readonly expires_at: number | null;
}

export interface StoredSignature {
  readonly scheme: string;
  /** Generic HMAC only: the header, its encoding and the prefix before the digest. */
  readonly header: string | null;
  readonly encoding: string | null;
  readonly prefix: string | null;
  /** The current secret first, then any rotated-out one still inside its overlap window. */
  readonly secrets: readonly StoredSigningSecret[];
}

/** A pipe's signature setting as operators see it: never a secret, sealed or hashed. */
export interface PipeSignatureView {
  readonly scheme: string;
  readonly header: string | null;
  readonly encoding: string | null;
  readonly prefix: string | null;
  readonly secrets: ReadonlyArray<{ readonly created_at: number; readonly expires_at: number | null }>;
}

export const UNSIGNED: PipeSignatureView = {
  scheme: 'none',
  header: null,
  encoding: null,
  prefix: null,
  secrets: [],
};

interface SignatureDoc {
  scheme?: string;
  header?: string | null;
  encoding?: string | null;
  prefix?: string | null;
  secrets?: ReadonlyArray<{
    sealed?: string | null;
    hash?: string | null;
    public_key?: string | null;
    created_at?: number;
    expires_at?: number | null;
  }>;
}

/** The stored setting of a document (absent on pipes made before issue 20: unsigned). */
export function storedSignatureOf(doc: SignatureDoc | null | undefined): StoredSignature | null {
  if (!doc?.scheme || doc.scheme === 'none') return null;
  return {
    scheme: doc.scheme,
    header: doc.header ?? null,
    encoding: doc.encoding ?? null,
    prefix: doc.prefix ?? null,
    secrets: (doc.secrets ?? []).map((s) => ({
      sealed: s.sealed ?? null,
      hash: s.hash ?? null,
      public_key: s.public_key ?? null,
      created_at: s.created_at ?? 0,
      expires_at: s.expires_at ?? null,
    })),
  };
}

/** The operators' view of a document's setting; the secrets' material is left behind. */
export function signatureViewOf(doc: SignatureDoc | null | undefined): PipeSignatureView {
  const stored = storedSignatureOf(doc);
  if (stored === null) return UNSIGNED;
  return {
    scheme: stored.scheme,
    header: stored.header,
    encoding: stored.encoding,
    prefix: stored.prefix,
    secrets: stored.secrets.map((s) => ({ created_at: s.created_at, expires_at: s.expires_at })),
  };
}
