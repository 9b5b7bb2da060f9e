import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Pipe, Template } from '../pipe-model.ts';
import {
  addRow,
  problemText,
  type RoutesForm,
  type RoutesProblem,
  removeRow,
  routesBody,
  routesForm,
  type SourceKind,
  setRow,
  t,
} from '../routes-form.ts';
import { ErrorNote, Field, Notice, useAction } from './components.tsx';
import { FieldError, FormError } from './form-errors.tsx';
import { loadTemplates } from './lookups.ts';
import { useLoad } from './use-load.ts';

/**
 * Edits how a pipe routes by event (docs/pipes.md, "Routing by event"): the event source, one
 * row per event with its template or "answer only", and the default template. Saved as one
 * pipe/update, so the pipe never runs on half an edit.
 */
export function PipeRoutesPanel(props: { pipe: Pipe; templates: readonly Template[]; onSaved: () => void }) {
  const { pipe, templates } = props;
  const [form, setForm] = useState<RoutesForm>(() => routesForm(pipe));
  const [problem, setProblem] = useState<RoutesProblem>();
  const [saved, setSaved] = useState(false);
  useEffect(() => setForm(routesForm(pipe)), [pipe.id, pipe.updated_at]);

  const edit = (next: RoutesForm) => {
    setForm(next);
    setProblem(undefined);
    setSaved(false);
  };
  const save = useAction(async () => {
    setSaved(false);
    const r = routesBody(pipe.id, form);
    if (!r.ok) {
      setProblem(r.problem);
      return;
    }
    setProblem(undefined);
    await api.post('/admin/api/pipe/update', r.body);
    setSaved(true);
    props.onSaved();
  });
  const at = (field: RoutesProblem['field'], row?: number): string | undefined =>
    problem &&
    problem.field === field &&
    (row === undefined || (problem.field === 'event' && problem.row === row))
      ? problemText(problem)
      : undefined;
  // A fresh list per select: one VNode may not be drawn in two places.
  const templateOptions = () =>
    templates.map((tpl) => (
      <option key={tpl.id} value={tpl.id}>
        {tpl.title}
      </option>
    ));

  return (
    <form
      class="panel pipe-routing"
      aria-labelledby="pipe-routing"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <h2 id="pipe-routing">{t('heading')}</h2>
      <p class="muted">{t('intro')}</p>
      <Field label={t('kind')}>
        <select
          value={form.kind}
          onChange={(e) => edit({ ...form, kind: e.currentTarget.value as SourceKind })}
        >
          <option value="none">{t('none')}</option>
          <option value="header">{t('header')}</option>
          <option value="body">{t('body')}</option>
        </select>
      </Field>
      {form.kind !== 'none' && (
        <Field label={form.kind === 'header' ? t('headerName') : t('bodyPath')}>
          <input
            value={form.source}
            maxLength={128}
            placeholder={form.kind === 'header' ? 'X-GitHub-Event' : 'object_kind'}
            aria-invalid={at('source') ? true : undefined}
            onInput={(e) => edit({ ...form, source: e.currentTarget.value })}
          />
          <FieldError message={at('source')} />
        </Field>
      )}
      {form.kind !== 'none' && (
        <>
          <ul class="route-rows">
            {form.rows.map((r, i) => (
              // Rows have no id of their own; the inputs are controlled, so index keys redraw them right.
              <li key={i} class="route-row">
                <Field label={t('eventOf', { n: String(i + 1) })}>
                  <input
                    value={r.event}
                    maxLength={64}
                    aria-invalid={at('event', i) ? true : undefined}
                    onInput={(e) => edit(setRow(form, i, { event: e.currentTarget.value }))}
                  />
                  <FieldError message={at('event', i)} />
                </Field>
                <Field label={t('templateOf', { event: r.event.trim() || String(i + 1) })}>
                  <select
                    value={r.templateId}
                    onChange={(e) => edit(setRow(form, i, { templateId: e.currentTarget.value }))}
                  >
                    <option value="">{t('answerOnly')}</option>
                    {templateOptions()}
                  </select>
                </Field>
                <button
                  type="button"
                  class="secondary"
                  aria-label={t('removeRow', { n: String(i + 1) })}
                  onClick={() => edit(removeRow(form, i))}
                >
                  {t('remove')}
                </button>
              </li>
            ))}
          </ul>
          <button type="button" class="secondary" onClick={() => edit(addRow(form))}>
            {t('add')}
          </button>
        </>
      )}
      <Field label={form.kind === 'none' ? t('template') : t('defaultTemplate')}>
        <select
          value={form.defaultTemplateId}
          onChange={(e) => edit({ ...form, defaultTemplateId: e.currentTarget.value })}
        >
          <option value="">{form.kind === 'none' ? t('plain') : t('noDefault')}</option>
          {templateOptions()}
        </select>
      </Field>
      {at('rows') && <Notice kind="warn">{at('rows')}</Notice>}
      <FormError error={save.error} fields={[]} />
      {saved && <Notice kind="ok">{t('saved')}</Notice>}
      <button type="submit" disabled={save.busy}>
        {t('save')}
      </button>
    </form>
  );
}

/** The panel with the bot's templates to choose from; an error shows in the panel's place. */
export function PipeRouting(props: { pipe: Pipe; onSaved: () => void }) {
  const templates = useLoad(() => loadTemplates(props.pipe.bot_id), [props.pipe.bot_id]);
  if (templates.error) return <ErrorNote error={templates.error} onRetry={templates.reload} />;
  if (!templates.data) return null;
  return <PipeRoutesPanel pipe={props.pipe} templates={templates.data.items} onSaved={props.onSaved} />;
}
