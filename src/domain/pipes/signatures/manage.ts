import { HeraldError, NotFoundError, ValidationError } from '../../../errors/index.js';
import { withRecordLock } from '../../../locks/record-lock.js';
import { lockKey } from '../../../redis/keys.js';
import type { PipeRecord, StoredSignature } from '../../../store/index.js';
import { announcePipeChange } from '../pipe-cache.js';
import { checkEventSourceNotSignature } from '../routing/routing.js';
import type { PipeDeps } from '../runtime.js';
import {
  DEFAULT_ROTATION_OVERLAP_S,
  type HmacEncoding,
  MAX_ROTATION_OVERLAP_S,
  type SignatureInput,
  type SignedScheme,
} from './schemes.js';
import { SecretUnreadableError } from './secret-box.js';
import { checkSecret, generateSecret, sealContext, storeSecret } from './secrets.js';

/*
 * Setting, changing and rotating a pipe's signature (back office: pipe/create's `signature`,
 * pipe/set-signature, pipe/rotate-signing-secret). A secret is answered once, by the call that
 * made it, and stored only sealed or hashed (secrets.ts). Changes are made under the pipe's
 * record lock (as pipes.ts) and reach every web process's cache before the call answers.
 */

/** An operator's setting, checked: the hmac-sha256 fields set only for that scheme. */
export interface SignatureSetting {
  readonly scheme: SignedScheme | 'none';
  readonly secret: string | null;
  readonly header: string | null;
  readonly encoding: HmacEncoding | null;
  readonly prefix: string | null;
}

// An HTTP header name (RFC 9110 token).
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
// Headers that carry something else: a signature there would be read as that too, or never arrive.
const RESERVED_HEADERS = new Set([
  'authorization',
  'cookie',
  'host',
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'idempotency-key',
]);
const PREFIX = /^[\x21-\x7e]{0,32}$/;

const onlyForHmac = (field: string): ValidationError =>
  new ValidationError(field, {
    'zh-CN': '仅用于 hmac-sha256 签名方式',
    'en-US': 'applies to the hmac-sha256 scheme only',
  });

/** Checks what an operator asked for (field names under `field`); throws a ValidationError. */
export function checkSignatureSetting(input: SignatureInput, field = 'signature'): SignatureSetting {
  const { scheme } = input;
  if (scheme !== 'hmac-sha256') {
    if (input.header !== undefined) throw onlyForHmac(`${field}.header`);
    if (input.encoding !== undefined) throw onlyForHmac(`${field}.encoding`);
    if (input.prefix !== undefined) throw onlyForHmac(`${field}.prefix`);
  }
  if (scheme === 'none') {
    if (input.secret !== undefined) {
      throw new ValidationError(`${field}.secret`, {
        'zh-CN': '不签名的管道没有密钥',
        'en-US': 'an unsigned pipe has no secret',
      });
    }
    return { scheme, secret: null, header: null, encoding: null, prefix: null };
  }
  if (input.secret !== undefined) checkSecret(scheme, input.secret, `${field}.secret`);
  if (scheme !== 'hmac-sha256') {
    return { scheme, secret: input.secret ?? null, header: null, encoding: null, prefix: null };
  }
  const header = input.header?.toLowerCase();
  if (header === undefined || !HEADER_NAME.test(header) || RESERVED_HEADERS.has(header)) {
    throw new ValidationError(`${field}.header`, {
      'zh-CN': '必须是一个请求头名称（不能是 Authorization、Cookie、Content-* 等）',
      'en-US': 'must be a request header name (not Authorization, Cookie, Content-* and the like)',
    });
  }
  const prefix = input.prefix ?? '';
  if (!PREFIX.test(prefix)) {
    throw new ValidationError(`${field}.prefix`, {
      'zh-CN': '必须是至多 32 个可见 ASCII 字符',
      'en-US': 'must be at most 32 visible ASCII characters',
    });
  }
  return { scheme, secret: input.secret ?? null, header, encoding: input.encoding ?? 'hex', prefix };
}

/** A fresh stored setting: the operator's secret or a generated one, and the secret to show once. */
export function newSignature(
  deps: PipeDeps,
  pipeId: string,
  setting: SignatureSetting,
): { stored: StoredSignature | null; secret: string | null } {
  if (setting.scheme === 'none') return { stored: null, secret: null };
  const secret = setting.secret ?? generateSecret(setting.scheme);
  return {
    stored: {
      scheme: setting.scheme,
      header: setting.header,
      encoding: setting.encoding,
      prefix: setting.prefix,
      secrets: [storeSecret(deps.pipeRuntime.secrets, pipeId, setting.scheme, secret, deps.now())],
    },
    secret,
  };
}

const pipeLock = (deps: PipeDeps, id: string): string => lockKey(deps.config.redisPrefix, 'pipe', id);

async function currentSignature(
  deps: PipeDeps,
  id: string,
): Promise<{ pipe: PipeRecord; signature: StoredSignature | null }> {
  const found = await deps.store.pipes.getWithTokenHash(id);
  if (!found) throw new NotFoundError('pipe');
  return { pipe: found.pipe, signature: found.signature };
}

async function save(deps: PipeDeps, id: string, signature: StoredSignature | null): Promise<PipeRecord> {
  if (!(await deps.store.pipes.setSignature(id, signature, deps.now()))) throw new NotFoundError('pipe');
  await announcePipeChange(deps, id);
  const pipe = await deps.store.pipes.get(id);
  if (!pipe) throw new NotFoundError('pipe');
  return pipe;
}

export interface SignatureChange {
  readonly pipe: PipeRecord;
  /** Present when the change made a secret: shown this once. */
  readonly signing_secret?: string;
}

/**
 * Sets a pipe's signature. The same scheme without a `secret` keeps the pipe's secrets (an
 * hmac-sha256 pipe may change its header, encoding or prefix so); another scheme, or a `secret`,
 * replaces them at once, without overlap (pipe/rotate-signing-secret keeps the old one
 * verifying for a while); `none` drops them.
 */
export async function setPipeSignature(
  deps: PipeDeps,
  id: string,
  setting: SignatureSetting,
): Promise<SignatureChange> {
  return withRecordLock(deps.redis, pipeLock(deps, id), async () => {
    const { pipe: before, signature: current } = await currentSignature(deps, id);
    checkEventSourceNotSignature(before.event_source, setting.header, 'signature');
    if (current !== null && current.scheme === setting.scheme && setting.secret === null) {
      const pipe = await save(deps, id, {
        ...current,
        header: setting.header,
        encoding: setting.encoding,
        prefix: setting.prefix,
      });
      return { pipe };
    }
    const { stored, secret } = newSignature(deps, id, setting);
    const pipe = await save(deps, id, stored);
    return secret === null ? { pipe } : { pipe, signing_secret: secret };
  });
}

export interface RotatedSecret {
  readonly pipe: PipeRecord;
  readonly signing_secret: string;
  /** When the secret rotated out stops verifying (ms); null when it stopped at once. */
  readonly previous_expires_at: number | null;
}

/**
 * Issues a new current secret (or the operator's); the one it replaces keeps verifying for
 * `overlapS` seconds (default DEFAULT_ROTATION_OVERLAP_S; 0: it stops at once). At most two
 * secrets verify at a time: a secret rotated out earlier, still inside its own overlap, is
 * dropped.
 */
export async function rotateSigningSecret(
  deps: PipeDeps,
  id: string,
  options: { readonly overlapS?: number; readonly secret?: string } = {},
): Promise<RotatedSecret> {
  const overlapS = options.overlapS ?? DEFAULT_ROTATION_OVERLAP_S;
  if (!Number.isInteger(overlapS) || overlapS < 0 || overlapS > MAX_ROTATION_OVERLAP_S) {
    throw new ValidationError('overlap_s', {
      'zh-CN': `必须是 0 到 ${MAX_ROTATION_OVERLAP_S} 之间的整数（秒）`,
      'en-US': `must be an integer from 0 to ${MAX_ROTATION_OVERLAP_S} (seconds)`,
    });
  }
  return withRecordLock(deps.redis, pipeLock(deps, id), async () => {
    const { signature: current } = await currentSignature(deps, id);
    if (current === null) throw new HeraldError('PIPE_NOT_SIGNED', { pipe_id: id });
    const scheme = current.scheme as SignedScheme;
    if (options.secret !== undefined) checkSecret(scheme, options.secret);
    const secret = options.secret ?? generateSecret(scheme);
    const now = deps.now();
    const fresh = storeSecret(deps.pipeRuntime.secrets, id, scheme, secret, now);
    const previous = current.secrets.find((s) => s.expires_at === null);
    const expiresAt = previous && overlapS > 0 ? now + overlapS * 1000 : null;
    const pipe = await save(deps, id, {
      ...current,
      secrets: previous && expiresAt !== null ? [fresh, { ...previous, expires_at: expiresAt }] : [fresh],
    });
    return { pipe, signing_secret: secret, previous_expires_at: expiresAt };
  });
}

/** Pipes read per store query while re-sealing. */
const RESEAL_PAGE = 100;

export interface ResealReport {
  /** Pipes holding a sealed secret. */
  readonly pipes_checked: number;
  /** Pipes with at least one secret sealed anew under SECRETS_KEY. */
  readonly pipes_resealed: number;
  readonly secrets_resealed: number;
  /** Pipes with a secret no configured key opens (left as they are): their senders fail until a new secret is set. */
  readonly unreadable: readonly string[];
}

/**
 * Seals every pipe's secrets anew under the current SECRETS_KEY: run after changing the key, so
 * that the old one can leave SECRETS_KEYS_PREVIOUS. Each pipe is changed under its record lock, as
 * the other signature changes are; a secret already under the current key is left alone, so the
 * call can be repeated.
 */
export async function resealSigningSecrets(deps: PipeDeps): Promise<ResealReport> {
  const box = deps.pipeRuntime.secrets;
  if (!box.canSeal) throw new HeraldError('SECRETS_KEY_MISSING');
  let checked = 0;
  let resealedPipes = 0;
  let resealedSecrets = 0;
  const unreadable: string[] = [];
  for (let after: string | null = null; ; ) {
    const ids = await deps.store.pipes.listSealedIds(after, RESEAL_PAGE);
    if (ids.length === 0) break;
    after = ids[ids.length - 1] as string;
    for (const id of ids) {
      checked++;
      const n = await withRecordLock(deps.redis, pipeLock(deps, id), async () => {
        const found = await deps.store.pipes.getWithTokenHash(id);
        const signature = found?.signature;
        if (!signature) return 0;
        let changed = 0;
        const secrets = signature.secrets.map((s) => {
          if (s.sealed === null || box.sealedWithCurrent(s.sealed)) return s;
          const key = box.open(s.sealed, sealContext(id));
          const sealed = box.seal(key, sealContext(id));
          key.fill(0);
          changed++;
          return { ...s, sealed };
        });
        if (changed > 0) await save(deps, id, { ...signature, secrets });
        return changed;
      }).catch((err: unknown) => {
        if (!(err instanceof SecretUnreadableError)) throw err;
        unreadable.push(id);
        return 0;
      });
      if (n > 0) resealedPipes++;
      resealedSecrets += n;
    }
  }
  return {
    pipes_checked: checked,
    pipes_resealed: resealedPipes,
    secrets_resealed: resealedSecrets,
    unreadable,
  };
}
