import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto';

/*
 * Secrets Herald must be able to read back (an HMAC key cannot be checked against a hash of
 * itself), encrypted at rest with AES-256-GCM under SECRETS_KEY. A sealed secret names the key
 * that sealed it (the first 4 bytes of a hash of that key), so a changed SECRETS_KEY is told
 * apart from a tampered record, and keys listed in SECRETS_KEYS_PREVIOUS still open what they
 * sealed. The associated data binds each secret to its record (the pipe id), so a sealed secret
 * copied onto another pipe does not open there.
 *
 * Format: `hsb1.<key id, 8 hex>.<iv, 12 bytes>.<ciphertext>.<tag, 16 bytes>`, base64url parts.
 */

const VERSION = 'hsb1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed secret that cannot be opened: no such key, or not what the key sealed. */
export class SecretUnreadableError extends Error {
  override readonly name = 'SecretUnreadableError';
}

const keyIdOf = (key: Buffer): string =>
  hash('sha256', Buffer.concat([Buffer.from('herald secrets key id\0'), key]), 'hex').slice(0, 8);

export class SecretBox {
  readonly #current: { id: string; key: Buffer } | null;
  readonly #keys: ReadonlyMap<string, Buffer>;

  /** `current` seals (null: nothing can be sealed); it and `previous` open. */
  constructor(current: Buffer | null, previous: readonly Buffer[] = []) {
    this.#current = current === null ? null : { id: keyIdOf(current), key: current };
    const keys = new Map<string, Buffer>();
    for (const key of previous) keys.set(keyIdOf(key), key);
    if (this.#current) keys.set(this.#current.id, this.#current.key);
    this.#keys = keys;
  }

  /** Whether a secret can be sealed (SECRETS_KEY is set). */
  get canSeal(): boolean {
    return this.#current !== null;
  }

  /** Encrypts `plain`, bound to `context` (what it belongs to). Throws when no key is set. */
  seal(plain: Buffer, context: string): string {
    if (this.#current === null) throw new SecretUnreadableError('no SECRETS_KEY to seal with');
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context));
    const ciphertext = Buffer.concat([cipher.update(plain), cipher.final()]);
    return [
      VERSION,
      this.#current.id,
      iv.toString('base64url'),
      ciphertext.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
    ].join('.');
  }

  /** Whether `sealed` was sealed with the current SECRETS_KEY (false for a previous key's or a stranger's). */
  sealedWithCurrent(sealed: string): boolean {
    return this.#current !== null && sealed.split('.')[1] === this.#current.id;
  }

  /** Decrypts what seal() made for the same `context`; throws SecretUnreadableError otherwise. */
  open(sealed: string, context: string): Buffer {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== VERSION) throw new SecretUnreadableError('not a sealed secret');
    const [, keyId, iv, ciphertext, tag] = parts as [string, string, string, string, string];
    const key = this.#keys.get(keyId);
    if (key === undefined) {
      throw new SecretUnreadableError(
        `sealed with key ${keyId}, which is neither SECRETS_KEY nor a previous key`,
      );
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]);
    } catch {
      throw new SecretUnreadableError(`sealed with key ${keyId} but does not authenticate`);
    }
  }
}
