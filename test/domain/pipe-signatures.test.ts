import { createHmac, sign as edSign, generateKeyPairSync, randomBytes } from 'node:crypto';
import { sign as octokitSign, verify as octokitVerify } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkSignatureSetting } from '../../src/domain/pipes/signatures/manage.js';
import { SIGNATURE_TOLERANCE_S, type SignedScheme } from '../../src/domain/pipes/signatures/schemes.js';
import { SecretBox, SecretUnreadableError } from '../../src/domain/pipes/signatures/secret-box.js';
import {
  checkSecret,
  generateSecret,
  storeSecret,
  tokenHashOf,
} from '../../src/domain/pipes/signatures/secrets.js';
import {
  openSignatureCheck,
  type SignatureCheck,
  verifySignature,
} from '../../src/domain/pipes/signatures/verify.js';
import { type HeraldError, ValidationError } from '../../src/errors/index.js';
import type { StoredSignature } from '../../src/store/index.js';

/*
 * Verified senders (issue 20) without services: each scheme's signatures computed with its
 * documented algorithm (and the packages the schemes publish), the Standard Webhooks test vectors,
 * tolerance edges on a pinned clock, rotation overlap, and the sealing of secrets.
 */

const PIPE = '7001';
const box = new SecretBox(randomBytes(32));

function checkFor(
  scheme: SignedScheme,
  secrets: ReadonlyArray<{ secret: string; expiresAt?: number | null }>,
  options: { header?: string; encoding?: 'hex' | 'base64'; prefix?: string } = {},
  sealWith: SecretBox = box,
): SignatureCheck {
  const stored: StoredSignature = {
    scheme,
    header: options.header ?? null,
    encoding: options.encoding ?? null,
    prefix: options.prefix ?? null,
    secrets: secrets.map((s) => ({
      ...storeSecret(sealWith, PIPE, scheme, s.secret, 1),
      expires_at: s.expiresAt ?? null,
    })),
  };
  return openSignatureCheck(stored, PIPE, box) as SignatureCheck;
}

const body = (text: string) => Buffer.from(text);
const hmacHex = (key: string | Buffer, data: string | Buffer) =>
  createHmac('sha256', key).update(data).digest('hex');
const hmacBase64 = (key: string | Buffer, data: string | Buffer) =>
  createHmac('sha256', key).update(data).digest('base64');

describe('SecretBox (AES-256-GCM at rest)', () => {
  it('opens what it sealed for the same record only, and never holds the plain text', () => {
    const plain = Buffer.from('the key bytes, 32 of them.......');
    const sealed = box.seal(plain, 'pipe 1');
    expect(sealed).toMatch(/^hsb1\.[0-9a-f]{8}\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain(plain.toString('base64url'));
    expect(box.open(sealed, 'pipe 1')).toEqual(plain);
    expect(() => box.open(sealed, 'pipe 2')).toThrow(SecretUnreadableError);
    // Two seals of one secret differ (a fresh IV each time).
    expect(box.seal(plain, 'pipe 1')).not.toBe(sealed);
  });

  it('refuses a tampered record and a key it does not have, naming the key id only', () => {
    const sealed = box.seal(Buffer.from('secret'), 'c');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('SECRET').toString('base64url');
    expect(() => box.open(parts.join('.'), 'c')).toThrow(/does not authenticate/);
    const other = new SecretBox(randomBytes(32));
    expect(() => other.open(sealed, 'c')).toThrow(new RegExp(`key ${sealed.split('.')[1]}`));
  });

  it('opens with a previous key after SECRETS_KEY changed, and seals with the new one', () => {
    const oldKey = randomBytes(32);
    const sealed = new SecretBox(oldKey).seal(Buffer.from('s'), 'c');
    const rotated = new SecretBox(randomBytes(32), [oldKey]);
    expect(rotated.open(sealed, 'c').toString()).toBe('s');
    expect(rotated.seal(Buffer.from('s'), 'c').split('.')[1]).not.toBe(sealed.split('.')[1]);
  });

  it('cannot seal without SECRETS_KEY', () => {
    const none = new SecretBox(null);
    expect(none.canSeal).toBe(false);
    expect(() => storeSecret(none, PIPE, 'github', 'a-github-webhook-secret', 1)).toThrow(
      expect.objectContaining({ key: 'PIPE_SECRETS_KEY_MISSING' }) as HeraldError,
    );
    // GitLab's token is hashed, not sealed: no key needed.
    expect(storeSecret(none, PIPE, 'gitlab', 'a-gitlab-secret-token', 1)).toEqual({
      sealed: null,
      hash: tokenHashOf('a-gitlab-secret-token'),
      public_key: null,
      created_at: 1,
      expires_at: null,
    });
  });

  it('a scheme this version does not know verifies nothing', () => {
    const stored: StoredSignature = {
      scheme: 'ed25519-v9',
      header: null,
      encoding: null,
      prefix: null,
      secrets: [storeSecret(box, PIPE, 'github', 'gh-secret-0123456789', 1)],
    };
    expect(openSignatureCheck(stored, PIPE, box)?.unreadable).toBe('unknown signature scheme "ed25519-v9"');
  });

  it('a check whose secret cannot be opened says why, without the secret', () => {
    const secret = 'gh-secret-0123456789';
    const sealedElsewhere = new SecretBox(randomBytes(32));
    const check = checkFor('github', [{ secret }], {}, sealedElsewhere);
    expect(check.unreadable).toMatch(/^sealed with key [0-9a-f]{8}, which is neither/);
    expect(check.unreadable).not.toContain(secret);
  });
});

describe('github: X-Hub-Signature-256', () => {
  // GitHub's documented example (docs: "Validating webhook deliveries", testing the signature).
  const SECRET = "It's a Secret to Everybody";
  const PAYLOAD = 'Hello, World!';
  const EXPECTED = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
  const check = checkFor('github', [{ secret: SECRET }]);
  const req = (headers: Record<string, string>, text = PAYLOAD) => ({
    headers,
    wire: body(text),
    decoded: body(text),
    now: Date.now(),
  });

  it("verifies GitHub's documented example, as @octokit/webhooks-methods signs it", async () => {
    expect(await octokitSign(SECRET, PAYLOAD)).toBe(EXPECTED);
    expect(verifySignature(check, req({ 'x-hub-signature-256': EXPECTED })).outcome).toBe('ok');
  });

  it('agrees with @octokit/webhooks-methods on random bodies and secrets', async () => {
    for (let i = 0; i < 50; i++) {
      const secret = randomBytes(24).toString('base64url');
      const text = JSON.stringify({ n: i, s: randomBytes(40).toString('hex'), u: 'é中文🎉' });
      const c = checkFor('github', [{ secret }]);
      const signature = await octokitSign(secret, text);
      expect(verifySignature(c, req({ 'x-hub-signature-256': signature }, text)).outcome).toBe('ok');
      // A signature made with another secret: both refuse it.
      const wrong = await octokitSign(`${secret}x`, text);
      expect(await octokitVerify(secret, text, wrong)).toBe(false);
      expect(verifySignature(c, req({ 'x-hub-signature-256': wrong }, text)).outcome).toBe('invalid');
    }
  });

  it('refuses a missing header, the SHA-1 header alone, a wrong prefix, a truncated or altered digest', () => {
    const digest = EXPECTED.slice('sha256='.length);
    expect(verifySignature(check, req({})).outcome).toBe('missing');
    expect(
      verifySignature(check, req({ 'x-hub-signature': `sha1=${hmacHex(SECRET, PAYLOAD).slice(0, 40)}` }))
        .outcome,
    ).toBe('missing');
    expect(verifySignature(check, req({ 'x-hub-signature-256': digest })).outcome).toBe('invalid');
    expect(verifySignature(check, req({ 'x-hub-signature-256': `sha1=${digest}` })).outcome).toBe('invalid');
    expect(verifySignature(check, req({ 'x-hub-signature-256': EXPECTED.slice(0, -2) })).outcome).toBe(
      'invalid',
    );
    const flipped = `${EXPECTED.slice(0, -1)}${EXPECTED.endsWith('7') ? '8' : '7'}`;
    expect(verifySignature(check, req({ 'x-hub-signature-256': flipped })).outcome).toBe('invalid');
    // Base64 of the right digest is not what GitHub sends: refused.
    expect(
      verifySignature(check, req({ 'x-hub-signature-256': `sha256=${hmacBase64(SECRET, PAYLOAD)}` })).outcome,
    ).toBe('invalid');
    // The body changed by one byte.
    expect(verifySignature(check, req({ 'x-hub-signature-256': EXPECTED }, `${PAYLOAD} `)).outcome).toBe(
      'invalid',
    );
  });

  it('covers the bytes as sent: a compressed body verifies over its wire bytes or its decoded bytes', () => {
    const wire = randomBytes(64); // stands for gzip output
    const decoded = body(PAYLOAD);
    const signed = (data: Buffer) => `sha256=${hmacHex(SECRET, data)}`;
    const over = (signature: string) =>
      verifySignature(check, { headers: { 'x-hub-signature-256': signature }, wire, decoded, now: 0 })
        .outcome;
    expect(over(signed(wire))).toBe('ok');
    expect(over(signed(decoded))).toBe('ok');
    expect(over(signed(randomBytes(64)))).toBe('invalid');
    // A byte-order mark the reader drops is part of what was sent: a body sent as it is (no
    // wire bytes kept) verifies with or without one.
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), decoded]);
    const plain = (signature: string) =>
      verifySignature(check, { headers: { 'x-hub-signature-256': signature }, wire: null, decoded, now: 0 })
        .outcome;
    expect(plain(signed(bom))).toBe('ok');
    expect(plain(signed(decoded))).toBe('ok');
    expect(plain(signed(Buffer.concat([Buffer.from([0xef, 0xbb]), decoded])))).toBe('invalid');
    expect(plain(signed(wire))).toBe('invalid');
  });
});

describe('gitlab: X-Gitlab-Token', () => {
  const TOKEN = 'glwh-secret-token-0123456789';
  const check = checkFor('gitlab', [{ secret: TOKEN }]);
  const req = (headers: Record<string, string>) => ({
    headers,
    wire: body('{}'),
    decoded: body('{}'),
    now: 0,
  });

  it('accepts the token, refuses another one or none, and keeps only its SHA-256', () => {
    expect(verifySignature(check, req({ 'x-gitlab-token': TOKEN })).outcome).toBe('ok');
    expect(verifySignature(check, req({ 'x-gitlab-token': `${TOKEN}x` })).outcome).toBe('invalid');
    expect(verifySignature(check, req({ 'x-gitlab-token': TOKEN.slice(1) })).outcome).toBe('invalid');
    expect(verifySignature(check, req({})).outcome).toBe('missing');
    expect(verifySignature(check, req({ 'x-gitlab-token': '' })).outcome).toBe('missing');
    // A GitHub-style signature is no GitLab token.
    expect(
      verifySignature(check, req({ 'x-hub-signature-256': `sha256=${hmacHex(TOKEN, '{}')}` })).outcome,
    ).toBe('missing');
    expect(check.secrets[0]?.hash?.toString('hex')).toBe(tokenHashOf(TOKEN));
    expect(check.secrets[0]?.key).toBeNull();
  });
});

describe('standard-webhooks', () => {
  // The Standard Webhooks reference library's test vector (libraries/javascript/src/webhook.test.ts,
  // "sign function works").
  const VECTOR = {
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    timestamp: 1614265330,
    payload: '{"test": 2432232314}',
    signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  };
  const check = checkFor('standard-webhooks', [{ secret: VECTOR.secret }]);
  const headersOf = (id: string, timestamp: number | string, signature: string) => ({
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature,
  });
  const at = (nowS: number, headers: Record<string, string>, payload = VECTOR.payload) =>
    verifySignature(check, { headers, wire: body(payload), decoded: body(payload), now: nowS * 1000 });
  /** The spec's algorithm: HMAC-SHA256 of `<id>.<timestamp>.<body>` keyed by the base64 after whsec_. */
  const specSign = (secret: string, id: string, ts: number, payload: string) =>
    `v1,${hmacBase64(Buffer.from(secret.slice('whsec_'.length), 'base64'), `${id}.${ts}.${payload}`)}`;

  afterEach(() => {
    vi.useRealTimers();
  });

  it('verifies the test vector and answers its webhook-id', () => {
    expect(specSign(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.payload)).toBe(VECTOR.signature);
    expect(
      new Webhook(VECTOR.secret).sign(VECTOR.id, new Date(VECTOR.timestamp * 1000), VECTOR.payload),
    ).toBe(VECTOR.signature);
    expect(at(VECTOR.timestamp, headersOf(VECTOR.id, VECTOR.timestamp, VECTOR.signature))).toEqual({
      outcome: 'ok',
      webhookId: VECTOR.id,
    });
  });

  it("follows the reference library's cases: multiple signatures, missing and partial headers", () => {
    const t = VECTOR.timestamp;
    const other = 'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=';
    const multi = [other, 'v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=', VECTOR.signature, other].join(
      ' ',
    );
    expect(at(t, headersOf(VECTOR.id, t, multi)).outcome).toBe('ok');
    const full = headersOf(VECTOR.id, t, VECTOR.signature);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { [name]: _gone, ...rest } = full;
      expect(at(t, rest).outcome).toBe('missing');
    }
    expect(at(t, { ...full, 'webhook-timestamp': 'hello' }).outcome).toBe('invalid');
    expect(at(t, { ...full, 'webhook-signature': 'v1,dawfeoifkpqwoekfpqoekf' }).outcome).toBe('invalid');
    expect(at(t, { ...full, 'webhook-signature': VECTOR.signature.slice(0, 8) }).outcome).toBe('invalid');
    expect(at(t, { ...full, 'webhook-signature': 'v1,' }).outcome).toBe('invalid');
    // The signature covers the id and the timestamp as well as the body.
    expect(at(t, { ...full, 'webhook-id': 'msg_other' }).outcome).toBe('invalid');
    expect(at(t + 1, { ...full, 'webhook-timestamp': String(t + 1) }).outcome).toBe('invalid');
    expect(at(t, full, `${VECTOR.payload} `).outcome).toBe('invalid');
    // An asymmetric (v1a) signature is not supported: nothing left to verify.
    expect(at(t, { ...full, 'webhook-signature': `v1a,${VECTOR.signature.slice(3)}` }).outcome).toBe(
      'invalid',
    );
  });

  it('tolerance edges: exactly 5 minutes either way passes, one second more is expired', () => {
    const t = VECTOR.timestamp;
    const h = headersOf(VECTOR.id, t, VECTOR.signature);
    const nowAt = (ms: number) =>
      verifySignature(check, {
        headers: h,
        wire: body(VECTOR.payload),
        decoded: body(VECTOR.payload),
        now: ms,
      }).outcome;
    expect(SIGNATURE_TOLERANCE_S).toBe(300);
    expect(nowAt((t + 300) * 1000)).toBe('ok');
    expect(nowAt((t + 300) * 1000 + 999)).toBe('ok'); // still second t+300
    expect(nowAt((t + 301) * 1000)).toBe('expired');
    // A timestamp in the future (the sender's clock ahead).
    expect(nowAt((t - 300) * 1000)).toBe('ok');
    expect(nowAt((t - 301) * 1000)).toBe('expired');
    expect(nowAt((t - 3600) * 1000)).toBe('expired');
  });

  it('decides every tolerance edge as the reference library does', () => {
    const t = VECTOR.timestamp;
    const wh = new Webhook(VECTOR.secret);
    const h = headersOf(VECTOR.id, t, VECTOR.signature);
    for (const offset of [-301, -300, -299, 0, 299, 300, 301]) {
      vi.useFakeTimers({ now: (t + offset) * 1000 });
      let theirs: string;
      try {
        wh.verify(VECTOR.payload, h);
        theirs = 'ok';
      } catch {
        theirs = 'refused';
      }
      const ours = at(t + offset, h).outcome;
      expect({ offset, ours: ours === 'ok' ? 'ok' : 'refused' }).toEqual({ offset, ours: theirs });
      vi.useRealTimers();
    }
  });

  it('agrees with the standardwebhooks package both ways on random messages', () => {
    const now = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 50; i++) {
      const secret = generateSecret('standard-webhooks');
      const id = `msg_${randomBytes(12).toString('base64url')}`;
      const payload = JSON.stringify({ i, data: randomBytes(30).toString('base64'), text: 'Grüße 🎉' });
      const c = checkFor('standard-webhooks', [{ secret }]);
      const wh = new Webhook(secret);
      // The package signs, Herald verifies.
      const theirs = wh.sign(id, new Date(now * 1000), payload);
      expect(
        verifySignature(c, {
          headers: headersOf(id, now, theirs),
          wire: body(payload),
          decoded: body(payload),
          now: now * 1000,
        }).outcome,
      ).toBe('ok');
      // The spec's algorithm signs, the package verifies (it would throw otherwise).
      const ours = specSign(secret, id, now, payload);
      expect(ours).toBe(theirs);
      expect(() => wh.verify(payload, headersOf(id, now, ours), { jsonParse: false })).not.toThrow();
      // Another secret: both refuse.
      const forged = specSign(generateSecret('standard-webhooks'), id, now, payload);
      expect(() => wh.verify(payload, headersOf(id, now, forged))).toThrow();
      expect(
        verifySignature(c, {
          headers: headersOf(id, now, forged),
          wire: body(payload),
          decoded: body(payload),
          now: now * 1000,
        }).outcome,
      ).toBe('invalid');
    }
  });

  it('checks the timestamp after the signature: a forged old request is invalid, not expired', () => {
    const t = VECTOR.timestamp;
    const forged = specSign(generateSecret('standard-webhooks'), VECTOR.id, t, VECTOR.payload);
    expect(at(t + 3600, headersOf(VECTOR.id, t, forged)).outcome).toBe('invalid');
    expect(at(t + 3600, headersOf(VECTOR.id, t, VECTOR.signature)).outcome).toBe('expired');
  });
});

describe("standard-webhooks v1a: ed25519 signatures checked with the sender's public key", () => {
  /** A sender's key pair, its public key written as Standard Webhooks writes it (whpk_ + base64). */
  function senderKeys() {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const x = publicKey.export({ format: 'jwk' }).x as string;
    return { whpk: `whpk_${Buffer.from(x, 'base64url').toString('base64')}`, privateKey };
  }
  /** The spec's v1a: an ed25519 signature of `<id>.<timestamp>.<body>`, base64. */
  const v1a = (
    privateKey: ReturnType<typeof senderKeys>['privateKey'],
    id: string,
    ts: number,
    payload: string,
  ) => `v1a,${edSign(null, Buffer.from(`${id}.${ts}.${payload}`), privateKey).toString('base64')}`;
  const payload = '{"type":"invoice.paid","id":42}';
  const ts = 1_700_000_000;
  const headers = (signature: string, t = ts) => ({
    'webhook-id': 'msg_2a',
    'webhook-timestamp': String(t),
    'webhook-signature': signature,
  });
  const verifyAt = (check: SignatureCheck, h: Record<string, string>, nowS = ts) =>
    verifySignature(check, { headers: h, wire: null, decoded: body(payload), now: nowS * 1000 });

  it('keeps the public key as it is (no SECRETS_KEY needed) and verifies what its private key signed', () => {
    const sender = senderKeys();
    const keyless = new SecretBox(null);
    const stored = storeSecret(keyless, PIPE, 'standard-webhooks', sender.whpk, 1);
    expect(stored.sealed).toBeNull();
    expect(stored.hash).toBeNull();
    expect(`whpk_${stored.public_key}`).toBe(sender.whpk);
    const check = checkFor('standard-webhooks', [{ secret: sender.whpk }], {}, keyless);
    expect(check.unreadable).toBeNull();
    const sig = v1a(sender.privateKey, 'msg_2a', ts, payload);
    expect(verifyAt(check, headers(sig))).toEqual({ outcome: 'ok', webhookId: 'msg_2a' });
    // Beside a v1 entry it cannot check (the list may hold both while a sender moves over).
    expect(verifyAt(check, headers(`v1,${randomBytes(32).toString('base64')} ${sig}`)).outcome).toBe('ok');
    // Another sender's key, another body, another id: invalid; the right signature too late: expired.
    expect(verifyAt(check, headers(v1a(senderKeys().privateKey, 'msg_2a', ts, payload))).outcome).toBe(
      'invalid',
    );
    expect(verifyAt(check, headers(v1a(sender.privateKey, 'msg_2a', ts, '{}'))).outcome).toBe('invalid');
    expect(verifyAt(check, headers(v1a(sender.privateKey, 'msg_2b', ts, payload))).outcome).toBe('invalid');
    expect(verifyAt(check, headers(sig), ts + SIGNATURE_TOLERANCE_S + 1).outcome).toBe('expired');
    // Malformed entries are passed over, not thrown on.
    expect(verifyAt(check, headers('v1a,not-base64!')).outcome).toBe('invalid');
    expect(verifyAt(check, headers(`v1a,${randomBytes(63).toString('base64')}`)).outcome).toBe('invalid');
  });

  it('verifies across a rotation from an HMAC secret to a public key', () => {
    const sender = senderKeys();
    const old = generateSecret('standard-webhooks');
    const check = checkFor('standard-webhooks', [
      { secret: sender.whpk },
      { secret: old, expiresAt: (ts + 60) * 1000 },
    ]);
    const hmac = `v1,${hmacBase64(Buffer.from(old.slice('whsec_'.length), 'base64'), `msg_2a.${ts}.${payload}`)}`;
    expect(verifyAt(check, headers(hmac)).outcome).toBe('ok');
    expect(verifyAt(check, headers(v1a(sender.privateKey, 'msg_2a', ts, payload))).outcome).toBe('ok');
    // Past the overlap only the public key verifies.
    const later = ts + 120;
    const hmacLater = `v1,${hmacBase64(Buffer.from(old.slice('whsec_'.length), 'base64'), `msg_2a.${later}.${payload}`)}`;
    expect(verifyAt(check, headers(hmacLater, later), later).outcome).toBe('invalid');
  });

  it('refuses a public key of the wrong size, naming the field', () => {
    const short = `whpk_${randomBytes(31).toString('base64')}`;
    expect(() => checkSecret('standard-webhooks', short, 'signature.secret')).toThrow(ValidationError);
    expect(() => checkSecret('standard-webhooks', senderKeys().whpk)).not.toThrow();
  });
});

describe('hmac-sha256: the operator names the header, the encoding and a prefix', () => {
  const SECRET = 'generic-hmac-secret-0123456789';
  const PAYLOAD = '{"event":"deploy","ok":true}';
  const req = (headers: Record<string, string>, text = PAYLOAD) => ({
    headers,
    wire: body(text),
    decoded: body(text),
    now: 0,
  });

  it('hex without a prefix', () => {
    const check = checkFor('hmac-sha256', [{ secret: SECRET }], { header: 'x-signature', encoding: 'hex' });
    expect(verifySignature(check, req({ 'x-signature': hmacHex(SECRET, PAYLOAD) })).outcome).toBe('ok');
    expect(
      verifySignature(check, req({ 'x-signature': hmacHex(SECRET, PAYLOAD).toUpperCase() })).outcome,
    ).toBe('ok');
    // The right digest in the wrong encoding, or in another header.
    expect(verifySignature(check, req({ 'x-signature': hmacBase64(SECRET, PAYLOAD) })).outcome).toBe(
      'invalid',
    );
    expect(verifySignature(check, req({ 'x-other': hmacHex(SECRET, PAYLOAD) })).outcome).toBe('missing');
  });

  it('base64 after a prefix', () => {
    const check = checkFor('hmac-sha256', [{ secret: SECRET }], {
      header: 'x-webhook-signature',
      encoding: 'base64',
      prefix: 'sha256=',
    });
    const good = `sha256=${hmacBase64(SECRET, PAYLOAD)}`;
    expect(verifySignature(check, req({ 'x-webhook-signature': good })).outcome).toBe('ok');
    // Padding is optional.
    expect(verifySignature(check, req({ 'x-webhook-signature': good.replace(/=$/, '') })).outcome).toBe('ok');
    expect(verifySignature(check, req({ 'x-webhook-signature': good.slice('sha256='.length) })).outcome).toBe(
      'invalid',
    );
    expect(
      verifySignature(check, req({ 'x-webhook-signature': `sha256=${hmacHex(SECRET, PAYLOAD)}` })).outcome,
    ).toBe('invalid');
    expect(verifySignature(check, req({ 'x-webhook-signature': good }, '{}')).outcome).toBe('invalid');
  });
});

describe('rotation overlap', () => {
  const OLD = 'old-secret-0123456789abcdef';
  const NEW = 'new-secret-0123456789abcdef';
  const END = 1_700_000_000_000;
  const check = checkFor('github', [{ secret: NEW }, { secret: OLD, expiresAt: END }]);
  const signedWith = (secret: string, now: number) =>
    verifySignature(check, {
      headers: { 'x-hub-signature-256': `sha256=${hmacHex(secret, 'payload')}` },
      wire: body('payload'),
      decoded: body('payload'),
      now,
    }).outcome;

  it('both secrets verify inside the window, only the new one from its end on', () => {
    expect(signedWith(NEW, END - 1)).toBe('ok');
    expect(signedWith(OLD, END - 1)).toBe('ok');
    expect(signedWith(NEW, END)).toBe('ok');
    expect(signedWith(OLD, END)).toBe('invalid');
    expect(signedWith('another-secret-0123456789', END - 1)).toBe('invalid');
  });

  it('standard-webhooks senders that sign with both secrets pass either way', () => {
    const a = generateSecret('standard-webhooks');
    const b = generateSecret('standard-webhooks');
    const c = checkFor('standard-webhooks', [{ secret: b }, { secret: a, expiresAt: END }]);
    const ts = Math.floor(END / 1000) - 10;
    const sig = (s: string) => `v1,${hmacBase64(Buffer.from(s.slice(6), 'base64'), `msg_1.${ts}.{}`)}`;
    const outcome = (signature: string, now: number) =>
      verifySignature(c, {
        headers: { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': signature },
        wire: body('{}'),
        decoded: body('{}'),
        now,
      }).outcome;
    expect(outcome(sig(a), END - 1)).toBe('ok');
    expect(outcome(sig(a), END)).toBe('invalid');
    expect(outcome(`${sig(a)} ${sig(b)}`, END)).toBe('ok');
  });
});

describe('settings and secrets an operator may give', () => {
  it('generates secrets in the form each scheme takes', () => {
    const whsec = generateSecret('standard-webhooks');
    expect(whsec).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(whsec.slice(6), 'base64')).toHaveLength(32); // GitLab's signing token: 32 bytes
    expect(generateSecret('github')).toMatch(/^[\w-]{43}$/);
    expect(generateSecret('github')).not.toBe(generateSecret('github'));
    expect(() => checkSecret('standard-webhooks', whsec)).not.toThrow();
    expect(() => checkSecret('github', generateSecret('github'))).not.toThrow();
  });

  it.each([
    ['standard-webhooks', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], // no whsec_
    ['standard-webhooks', `whsec_${randomBytes(16).toString('base64')}`], // 16 bytes: too short
    ['standard-webhooks', `whsec_${randomBytes(65).toString('base64')}`], // too long
    ['standard-webhooks', 'whsec_not base64!'],
    ['github', 'short'],
    ['gitlab', 'a'.repeat(257)],
    ['hmac-sha256', 'has a\nnewline in it, 16+ chars'],
  ] as const)('refuses a %s secret %j', (scheme, secret) => {
    expect(() => checkSecret(scheme, secret)).toThrow(ValidationError);
  });

  it('checks hmac-sha256 options and refuses them on other schemes', () => {
    expect(checkSignatureSetting({ scheme: 'hmac-sha256', header: 'X-Signature' })).toEqual({
      scheme: 'hmac-sha256',
      secret: null,
      header: 'x-signature',
      encoding: 'hex',
      prefix: '',
    });
    const field = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return (err as ValidationError).field;
      }
      return null;
    };
    expect(field(() => checkSignatureSetting({ scheme: 'hmac-sha256' }))).toBe('signature.header');
    expect(field(() => checkSignatureSetting({ scheme: 'hmac-sha256', header: 'Authorization' }))).toBe(
      'signature.header',
    );
    expect(field(() => checkSignatureSetting({ scheme: 'hmac-sha256', header: 'x sig' }))).toBe(
      'signature.header',
    );
    expect(field(() => checkSignatureSetting({ scheme: 'hmac-sha256', header: 'x-s', prefix: 'a b' }))).toBe(
      'signature.prefix',
    );
    expect(field(() => checkSignatureSetting({ scheme: 'github', header: 'x-s' }))).toBe('signature.header');
    expect(field(() => checkSignatureSetting({ scheme: 'gitlab', encoding: 'hex' }))).toBe(
      'signature.encoding',
    );
    expect(field(() => checkSignatureSetting({ scheme: 'none', secret: 'x'.repeat(20) }))).toBe(
      'signature.secret',
    );
    expect(field(() => checkSignatureSetting({ scheme: 'github', secret: 'short' }))).toBe(
      'signature.secret',
    );
  });
});
