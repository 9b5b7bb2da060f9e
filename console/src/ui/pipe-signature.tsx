import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { signatureText } from '../connect-model.ts';
import { formatNumber, formatTime } from '../i18n.ts';
import type { Pipe } from '../pipe-model.ts';
import {
  canRotate,
  DEFAULT_OVERLAP,
  ENCODINGS,
  type Encoding,
  liveSecrets,
  OVERLAPS,
  type Overlap,
  overlapLabel,
  rotateBody,
  SCHEMES,
  type Scheme,
  type SignatureForm,
  schemeLabel,
  setSignatureBody,
  signatureErrorText,
  signatureForm,
  t,
} from '../signature-model.ts';
import { Confirm, ErrorNote, Field, Notice, ShownOnce, useAction } from './components.tsx';

/** A refusal the panel explains in its own words, or the usual error note. */
function SignatureError(props: { error: unknown }) {
  const text = signatureErrorText(props.error);
  return text ? <Notice kind="warn">{text}</Notice> : <ErrorNote error={props.error} />;
}

/**
 * The pipe's signature (docs/pipes.md, "Verified senders"): change the scheme, rotate the secret.
 * A new secret lives only in this component's state, so leaving the page forgets it (the pipe
 * screen keys it by pipe id, so another pipe's page starts without it).
 */
export function PipeSignaturePanel(props: { pipe: Pipe; onChanged: () => void }) {
  const { pipe } = props;
  const [form, setForm] = useState<SignatureForm>(() => signatureForm(pipe.signature));
  const [headerBad, setHeaderBad] = useState(false);
  const [overlap, setOverlap] = useState<Overlap>(DEFAULT_OVERLAP);
  const [confirm, setConfirm] = useState<'change' | 'rotate' | null>(null);
  const [secret, setSecret] = useState<string>();
  const [changed, setChanged] = useState(false);
  useEffect(() => setForm(signatureForm(pipe.signature)), [pipe.id, pipe.updated_at]);

  const change = useAction(async () => {
    setConfirm(null);
    const r = setSignatureBody(pipe.id, form);
    if (!r.ok) return;
    const res = await api.post<{ signing_secret?: string }>('/admin/api/pipe/set-signature', r.body);
    setSecret(res.signing_secret);
    setChanged(true);
    props.onChanged();
  });
  const rotate = useAction(async () => {
    setConfirm(null);
    setChanged(false);
    const res = await api.post<{ signing_secret: string }>(
      '/admin/api/pipe/rotate-signing-secret',
      rotateBody(pipe.id, overlap),
    );
    setSecret(res.signing_secret);
    props.onChanged();
  });

  const live = liveSecrets(pipe.signature, Date.now());
  const set = (patch: Partial<SignatureForm>) => {
    setForm((f) => ({ ...f, ...patch }));
    setChanged(false);
  };

  return (
    <section class="panel" aria-labelledby="pipe-signature">
      <h2 id="pipe-signature">{t('heading')}</h2>
      <dl class="facts signature-facts">
        <dt>{t('current')}</dt>
        <dd>{signatureText(pipe.signature)}</dd>
        <dt>{t('live')}</dt>
        <dd>{t('liveCount', { count: formatNumber(live.count) })}</dd>
      </dl>
      {live.count > 1 && live.previousEndsAt !== null && (
        <Notice kind="info">{t('previousEnds', { time: formatTime(live.previousEndsAt) })}</Notice>
      )}
      {secret !== undefined && <ShownOnce label={t('newSecret')} value={secret} />}
      {changed && secret === undefined && <Notice kind="ok">{t('changed')}</Notice>}

      <form
        onSubmit={(e) => {
          e.preventDefault();
          const r = setSignatureBody(pipe.id, form);
          setHeaderBad(!r.ok);
          if (r.ok) setConfirm('change');
        }}
      >
        <div class="form-grid">
          <Field label={t('schemeField')}>
            <select value={form.scheme} onChange={(e) => set({ scheme: e.currentTarget.value as Scheme })}>
              {SCHEMES.map((s) => (
                <option key={s} value={s}>
                  {schemeLabel(s)}
                </option>
              ))}
            </select>
          </Field>
          {form.scheme === 'hmac-sha256' && (
            <>
              <Field label={t('header')} hint={headerBad ? t('headerBad') : undefined}>
                <input
                  required
                  maxLength={64}
                  value={form.header}
                  aria-invalid={headerBad}
                  onInput={(e) => set({ header: e.currentTarget.value })}
                />
              </Field>
              <Field label={t('encoding')}>
                <select
                  value={form.encoding}
                  onChange={(e) => set({ encoding: e.currentTarget.value as Encoding })}
                >
                  {ENCODINGS.map((x) => (
                    <option key={x} value={x}>
                      {x}
                    </option>
                  ))}
                </select>
              </Field>
              <Field label={t('prefix')}>
                <input
                  maxLength={32}
                  value={form.prefix}
                  onInput={(e) => set({ prefix: e.currentTarget.value })}
                />
              </Field>
            </>
          )}
          {form.scheme !== 'none' && (
            <Field label={t('secret')} hint={t('secretHint')}>
              <input
                type="password"
                autoComplete="off"
                maxLength={256}
                value={form.secret}
                onInput={(e) => set({ secret: e.currentTarget.value })}
              />
            </Field>
          )}
        </div>
        {change.error !== undefined && <SignatureError error={change.error} />}
        <button type="submit" class="secondary" disabled={change.busy}>
          {t('change')}
        </button>
      </form>

      <fieldset class="rate-fields">
        <legend>{t('rotateHeading')}</legend>
        <Field label={t('overlap')}>
          <select value={overlap} onChange={(e) => setOverlap(e.currentTarget.value as Overlap)}>
            {OVERLAPS.map((o) => (
              <option key={o.key} value={o.key}>
                {overlapLabel(o.key)}
              </option>
            ))}
          </select>
        </Field>
        {!canRotate(pipe.signature) && <p class="field-hint">{t('noScheme')}</p>}
        {rotate.error !== undefined && <SignatureError error={rotate.error} />}
        <button type="button" class="secondary" disabled={rotate.busy} onClick={() => setConfirm('rotate')}>
          {t('rotate')}
        </button>
      </fieldset>

      <Confirm
        open={confirm === 'change'}
        title={t('changeTitle')}
        confirmLabel={t('change')}
        danger
        onCancel={() => setConfirm(null)}
        onConfirm={() => void change.run()}
      >
        <p>{t('changeBody')}</p>
        {form.scheme === 'none' && <p>{t('changeToNone')}</p>}
      </Confirm>
      <Confirm
        open={confirm === 'rotate'}
        title={t('rotateTitle')}
        confirmLabel={t('rotate')}
        onCancel={() => setConfirm(null)}
        onConfirm={() => void rotate.run()}
      >
        <p>{t('rotateBody')}</p>
        {overlap === 'none' && <p>{t('rotateNoOverlap')}</p>}
      </Confirm>
    </section>
  );
}
