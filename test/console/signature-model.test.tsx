import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../console/src/api.ts';
import { LANGS, lang } from '../../console/src/i18n.ts';
import type { Pipe, PipeSignature } from '../../console/src/pipe-model.ts';
import {
  canRotate,
  DEFAULT_OVERLAP,
  liveSecrets,
  OVERLAPS,
  overlapLabel,
  rotateBody,
  SCHEMES,
  schemeLabel,
  setSignatureBody,
  signatureErrorText,
  signatureForm,
  t,
} from '../../console/src/signature-model.ts';
import { PipeSignaturePanel } from '../../console/src/ui/pipe-signature.tsx';
import { html, textOf } from './html.ts';

const before = lang.value;
afterEach(() => {
  lang.value = before;
});

const NOW = 1_700_000_000_000;
const sig = (over: Partial<PipeSignature> = {}): PipeSignature => ({
  scheme: 'github',
  header: null,
  encoding: null,
  prefix: null,
  secrets: [{ created_at: NOW - 1000, expires_at: null }],
  ...over,
});

describe('the scheme form', () => {
  it('starts from the pipe, never with a secret', () => {
    expect(signatureForm(undefined)).toEqual({
      scheme: 'none',
      header: '',
      encoding: 'hex',
      prefix: '',
      secret: '',
    });
    expect(
      signatureForm(
        sig({ scheme: 'hmac-sha256', header: 'x-acme-signature', encoding: 'base64', prefix: 'sha256=' }),
      ),
    ).toEqual({
      scheme: 'hmac-sha256',
      header: 'x-acme-signature',
      encoding: 'base64',
      prefix: 'sha256=',
      secret: '',
    });
    // An unknown scheme (a newer server) is shown as none rather than guessed.
    expect(signatureForm(sig({ scheme: 'future' })).scheme).toBe('none');
  });

  it('sends a scheme by name, or with the operator secret', () => {
    const f = signatureForm(undefined);
    expect(setSignatureBody('p1', f)).toEqual({ ok: true, body: { id: 'p1', signature: 'none' } });
    // A secret typed while "none" is chosen is not sent.
    expect(setSignatureBody('p1', { ...f, secret: 'x'.repeat(20) })).toEqual({
      ok: true,
      body: { id: 'p1', signature: 'none' },
    });
    expect(setSignatureBody('p1', { ...f, scheme: 'gitlab' })).toEqual({
      ok: true,
      body: { id: 'p1', signature: 'gitlab' },
    });
    expect(setSignatureBody('p1', { ...f, scheme: 'github', secret: '  s3cret-of-sixteen  ' })).toEqual({
      ok: true,
      body: { id: 'p1', signature: { scheme: 'github', secret: 's3cret-of-sixteen' } },
    });
  });

  it('sends header, encoding and prefix for hmac-sha256, and refuses a reserved header', () => {
    const f = { ...signatureForm(undefined), scheme: 'hmac-sha256' as const };
    expect(
      setSignatureBody('p1', { ...f, header: ' X-Acme-Signature ', encoding: 'base64', prefix: 'sha256=' }),
    ).toEqual({
      ok: true,
      body: {
        id: 'p1',
        signature: {
          scheme: 'hmac-sha256',
          header: 'X-Acme-Signature',
          encoding: 'base64',
          prefix: 'sha256=',
        },
      },
    });
    expect(setSignatureBody('p1', { ...f, header: 'X-Sig', secret: 'k'.repeat(16) })).toEqual({
      ok: true,
      body: {
        id: 'p1',
        signature: { scheme: 'hmac-sha256', header: 'X-Sig', encoding: 'hex', secret: 'k'.repeat(16) },
      },
    });
    for (const header of [
      '',
      'Authorization',
      'cookie',
      'Content-Type',
      'Idempotency-Key',
      'Connection',
      'bad header',
    ]) {
      expect(setSignatureBody('p1', { ...f, header })).toEqual({ ok: false, field: 'header' });
    }
  });
});

describe('rotation', () => {
  it('offers none, an hour, a day (the default) and a week', () => {
    expect(OVERLAPS.map((o) => o.seconds)).toEqual([0, 3600, 86_400, 604_800]);
    expect(DEFAULT_OVERLAP).toBe('day');
    expect(rotateBody('p1', DEFAULT_OVERLAP)).toEqual({ id: 'p1', overlap_s: 86_400 });
    expect(rotateBody('p1', 'none')).toEqual({ id: 'p1', overlap_s: 0 });
    expect(rotateBody('p1', 'week')).toEqual({ id: 'p1', overlap_s: 604_800 });
  });

  it('counts the live secrets and says when the older stops', () => {
    expect(liveSecrets(undefined, NOW)).toEqual({ count: 0, previousEndsAt: null });
    expect(liveSecrets(sig(), NOW)).toEqual({ count: 1, previousEndsAt: null });
    const two = sig({
      secrets: [
        { created_at: NOW - 5000, expires_at: NOW + 60_000 },
        { created_at: NOW - 1000, expires_at: null },
      ],
    });
    expect(liveSecrets(two, NOW)).toEqual({ count: 2, previousEndsAt: NOW + 60_000 });
    // Past its window the old secret no longer counts, even before the view is reloaded.
    expect(liveSecrets(two, NOW + 60_001)).toEqual({ count: 1, previousEndsAt: null });
    expect(canRotate(two)).toBe(true);
    expect(canRotate(sig({ scheme: 'none', secrets: [] }))).toBe(false);
  });
});

describe('refusals and wording', () => {
  it('explains 40912 and 40913, and leaves other errors to the error note', () => {
    lang.value = 'en-US';
    expect(signatureErrorText(new ApiError(409, 40912, 'x'))).toContain('SECRETS_KEY');
    expect(signatureErrorText(new ApiError(409, 40913, 'x'))).toContain('no secret to rotate');
    expect(signatureErrorText(new ApiError(400, 40000, 'x'))).toBeUndefined();
    expect(signatureErrorText(new Error('x'))).toBeUndefined();
    lang.value = 'zh-CN';
    expect(signatureErrorText(new ApiError(409, 40912, 'x'))).toContain('SECRETS_KEY');
    expect(signatureErrorText(new ApiError(409, 40913, 'x'))).toContain('没有可更换的密钥');
  });

  it('names every scheme and overlap in both languages', () => {
    for (const l of LANGS) {
      lang.value = l;
      const names = [...SCHEMES.map(schemeLabel), ...OVERLAPS.map((o) => overlapLabel(o.key))];
      for (const n of names) expect(n).not.toBe('');
      expect(new Set(names).size).toBe(names.length);
      expect(t('changeBody')).not.toBe('');
    }
    lang.value = 'en-US';
    expect(t('changeBody')).toContain('every sender must be updated');
  });
});

const pipe = (signature: PipeSignature): Pipe => ({
  id: 'p1',
  bot_id: 'b1',
  title: 'GitHub',
  channel_id: 'c1',
  guild_id: 'g1',
  template_id: null,
  enabled: true,
  rate_limit: null,
  rate_limit_in_force: { capacity: 60, per_second: 2 },
  capture: true,
  signature,
  created_at: NOW,
  updated_at: NOW,
});

describe('the signature panel', () => {
  it('shows the scheme, two live secrets, when the old one stops, and no secret', () => {
    lang.value = 'en-US';
    const end = Date.now() + 3_600_000;
    const markup = html(
      <PipeSignaturePanel
        pipe={pipe(
          sig({
            secrets: [
              { created_at: NOW, expires_at: end },
              { created_at: NOW + 1, expires_at: null },
            ],
          }),
        )}
        onChanged={() => undefined}
      />,
    );
    const text = textOf(markup);
    expect(text).toContain('github, header X-Hub-Signature-256 (2 live secrets)');
    expect(text).toContain('Live secrets2');
    expect(text).toContain('The previous secret stops verifying at');
    expect(markup).toMatch(/<option selected value="day">24 hours \(default\)<\/option>/);
    expect(markup).not.toContain('New signing secret');
    // The header fields appear only for hmac-sha256.
    expect(text).not.toContain('Signature header');
  });

  it('shows the hmac-sha256 fields for such a pipe', () => {
    lang.value = 'en-US';
    const markup = html(
      <PipeSignaturePanel
        pipe={pipe(sig({ scheme: 'hmac-sha256', header: 'x-acme', encoding: 'base64', prefix: 'sha256=' }))}
        onChanged={() => undefined}
      />,
    );
    expect(textOf(markup)).toContain('hmac-sha256, header x-acme, base64 encoded, prefix sha256=');
    expect(markup).toContain('value="x-acme"');
    expect(markup).toContain('value="sha256="');
    expect(markup).toMatch(/<option selected value="base64">/);
  });
});
