import { afterEach, describe, expect, it } from 'vitest';
import { LANGS, lang } from '../../console/src/i18n.ts';
import type { Pipe, Template } from '../../console/src/pipe-model.ts';
import {
  addRow,
  problemText,
  type RoutesForm,
  removeRow,
  routesBody,
  routesForm,
  setRow,
  t,
} from '../../console/src/routes-form.ts';
import { PipeRoutesPanel } from '../../console/src/ui/pipe-routes.tsx';
import { html, textOf } from './html.ts';

const before = lang.value;
afterEach(() => {
  lang.value = before;
});

const pipe = (over: Partial<Pipe> = {}): Pipe => ({
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
  created_at: 1,
  updated_at: 1,
  ...over,
});

const routed = pipe({
  event_source: { header: 'x-github-event' },
  routes: { push: 't-push', ping: null },
  template_id: 't-default',
});

describe('the routing form', () => {
  it("starts from the pipe's routing, and gives it back unchanged", () => {
    const f = routesForm(routed);
    expect(f).toEqual({
      kind: 'header',
      source: 'x-github-event',
      rows: [
        { event: 'push', templateId: 't-push' },
        { event: 'ping', templateId: '' },
      ],
      defaultTemplateId: 't-default',
    });
    expect(routesBody('p1', f)).toEqual({
      ok: true,
      body: {
        id: 'p1',
        event_source: { header: 'x-github-event' },
        routes: { push: 't-push', ping: null },
        template_id: 't-default',
      },
    });
  });

  it('turns routing off, keeping or dropping the template', () => {
    const off = routesForm(pipe({ template_id: 't1' }));
    expect(off.kind).toBe('none');
    expect(routesBody('p1', off)).toEqual({
      ok: true,
      body: { id: 'p1', event_source: null, routes: null, template_id: 't1' },
    });
    expect(routesBody('p1', { ...off, defaultTemplateId: '' })).toMatchObject({
      ok: true,
      body: { template_id: null },
    });
    // Rows left over with no source are refused rather than silently dropped.
    expect(routesBody('p1', { ...routesForm(routed), kind: 'none' })).toEqual({
      ok: false,
      problem: { field: 'rows', why: 'noSource' },
    });
  });

  it('reads a body path and trims what was typed', () => {
    let f: RoutesForm = { ...routesForm(pipe()), kind: 'body', source: ' object_kind ' };
    f = setRow(addRow(f), 0, { event: ' Push Hook ', templateId: 't1' });
    expect(routesBody('p1', f)).toEqual({
      ok: true,
      body: {
        id: 'p1',
        event_source: { body: 'object_kind' },
        routes: { 'Push Hook': 't1' },
        template_id: null,
      },
    });
  });

  it('refuses what the server would, naming the field and row', () => {
    const f = routesForm(routed);
    const problem = (x: typeof f) => {
      const r = routesBody('p1', x);
      return r.ok ? null : r.problem;
    };
    expect(problem({ ...f, source: ' ' })).toEqual({ field: 'source', why: 'empty' });
    expect(problem({ ...f, source: 'X GitHub' })).toEqual({ field: 'source', why: 'header' });
    expect(problem({ ...f, source: 'x'.repeat(129) })).toEqual({ field: 'source', why: 'long' });
    expect(problem({ ...f, kind: 'body', source: 'a..b' })).toEqual({ field: 'source', why: 'body' });
    expect(problem({ ...f, kind: 'body', source: 'a.b.c.d.e.f.g.h.i' })).toEqual({
      field: 'source',
      why: 'body',
    });
    expect(problem({ ...f, kind: 'body', source: 'a.b.c.d.e.f.g.h' })).toBeNull();
    expect(problem(setRow(f, 1, { event: '' }))).toEqual({ field: 'event', row: 1, why: 'empty' });
    expect(problem(setRow(f, 1, { event: 'push' }))).toEqual({ field: 'event', row: 1, why: 'twice' });
    expect(problem(setRow(f, 0, { event: 'pushé' }))).toEqual({ field: 'event', row: 0, why: 'chars' });
    expect(problem(setRow(f, 0, { event: 'e'.repeat(65) }))).toEqual({ field: 'event', row: 0, why: 'long' });
    let many = { ...f, rows: [] as typeof f.rows };
    for (let i = 0; i < 51; i++) many = setRow(addRow(many), i, { event: `e${i}` });
    expect(problem(many)).toEqual({ field: 'rows', why: 'many' });
    expect(problem(removeRow(many, 0))).toBeNull();
    // Nothing would ever be posted: no default and every route answers only.
    expect(problem({ ...f, defaultTemplateId: '', rows: [{ event: 'ping', templateId: '' }] })).toEqual({
      field: 'rows',
      why: 'nothingPosts',
    });
  });

  it('says every problem in both languages', () => {
    const problems = [
      { field: 'source', why: 'empty' },
      { field: 'source', why: 'header' },
      { field: 'source', why: 'body' },
      { field: 'source', why: 'long' },
      { field: 'event', row: 0, why: 'empty' },
      { field: 'event', row: 0, why: 'chars' },
      { field: 'event', row: 0, why: 'long' },
      { field: 'event', row: 0, why: 'twice' },
      { field: 'rows', why: 'many' },
      { field: 'rows', why: 'noSource' },
      { field: 'rows', why: 'nothingPosts' },
    ] as const;
    for (const l of LANGS) {
      lang.value = l;
      const texts = problems.map(problemText);
      expect(new Set(texts).size).toBe(problems.length);
      for (const text of texts) expect(text).not.toMatch(/^[a-zA-Z]+$/);
    }
    lang.value = 'en-US';
    expect(t('heading')).toBe('Template and routing');
  });
});

describe('the routing panel', () => {
  const templates: Template[] = [
    { id: 't-push', title: 'Push card', msgtype: 10, test_data: '' } as Template,
    { id: 't-default', title: 'Anything else', msgtype: 9, test_data: '' } as Template,
  ];

  it("draws a row per route with the bot's templates, and the default", () => {
    lang.value = 'en-US';
    const markup = html(<PipeRoutesPanel pipe={routed} templates={templates} onSaved={() => undefined} />);
    const text = textOf(markup);
    expect(text).toContain('Template for push');
    expect(text).toContain('Template for ping');
    expect(text).toContain('Default template');
    expect(markup).toContain('value="x-github-event"');
    // Three selects (push, ping, the default) each offer every template; push's is chosen.
    expect(markup.match(/<option (?:selected )?value="t-push"/g)).toHaveLength(3);
    expect(markup.match(/<option selected value="t-push"/g)).toHaveLength(1);
    expect(markup.match(/<option selected value="t-default"/g)).toHaveLength(1);
  });

  it('names the template plainly when the pipe does not route', () => {
    lang.value = 'en-US';
    const text = textOf(
      html(<PipeRoutesPanel pipe={pipe()} templates={templates} onSaved={() => undefined} />),
    );
    expect(text).not.toContain('Default template');
    expect(text).toContain('None (plain text: the body is {"content": "…"})');
    expect(text).not.toContain('Add a route');
  });
});
