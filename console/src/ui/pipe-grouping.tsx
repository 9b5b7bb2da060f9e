import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import {
  fieldText,
  GROUP_MODES,
  type GroupingField,
  type GroupingForm,
  type GroupMode,
  groupingBody,
  groupingForm,
  type PipeGrouping,
  t,
} from '../grouping-form.ts';
import { Field, Notice, useAction } from './components.tsx';
import { FieldError, FormError } from './form-errors.tsx';

/** Sets how a pipe groups its messages (docs/pipes.md, "Grouping"), with one pipe/update. */
export function PipeGroupingPanel(props: {
  pipe: { id: string; updated_at: number; grouping?: PipeGrouping | null };
  onSaved: () => void;
}) {
  const { pipe } = props;
  const [form, setForm] = useState<GroupingForm>(() => groupingForm(pipe.grouping));
  const [bad, setBad] = useState<GroupingField>();
  const [saved, setSaved] = useState(false);
  useEffect(() => setForm(groupingForm(pipe.grouping)), [pipe.id, pipe.updated_at]);
  const edit = (patch: Partial<GroupingForm>) => {
    setForm((f) => ({ ...f, ...patch }));
    setBad(undefined);
    setSaved(false);
  };
  const save = useAction(async () => {
    setSaved(false);
    const r = groupingBody(pipe.id, form);
    if (!r.ok) {
      setBad(r.field);
      return;
    }
    await api.post('/admin/api/pipe/update', r.body);
    setSaved(true);
    props.onSaved();
  });
  const at = (field: GroupingField) => (bad === field ? fieldText(field) : undefined);
  return (
    <form
      class="panel"
      aria-labelledby="pipe-grouping"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <h2 id="pipe-grouping">{t('heading')}</h2>
      <p class="muted">{t('intro')}</p>
      <Field label={t('mode')}>
        <select value={form.mode} onChange={(e) => edit({ mode: e.currentTarget.value as GroupMode })}>
          {GROUP_MODES.map((m) => (
            <option key={m} value={m}>
              {t(m)}
            </option>
          ))}
        </select>
      </Field>
      {form.mode !== 'none' && (
        <>
          <Field label={t('key')} hint={t('keyHint')}>
            <input
              value={form.key}
              maxLength={1000}
              aria-invalid={at('key') ? true : undefined}
              onInput={(e) => edit({ key: e.currentTarget.value })}
            />
            <FieldError message={at('key')} />
          </Field>
          <Field label={t('window')} hint={t('windowHint')}>
            <input
              inputMode="numeric"
              value={form.windowS}
              aria-invalid={at('window') ? true : undefined}
              onInput={(e) => edit({ windowS: e.currentTarget.value })}
            />
            <FieldError message={at('window')} />
          </Field>
          {form.mode === 'throttle' && (
            <Field label={t('limit')}>
              <input
                inputMode="numeric"
                value={form.limit}
                aria-invalid={at('limit') ? true : undefined}
                onInput={(e) => edit({ limit: e.currentTarget.value })}
              />
              <FieldError message={at('limit')} />
            </Field>
          )}
        </>
      )}
      <FormError error={save.error} fields={[]} />
      {saved && <Notice kind="ok">{t('saved')}</Notice>}
      <button type="submit" disabled={save.busy}>
        {t('save')}
      </button>
    </form>
  );
}
