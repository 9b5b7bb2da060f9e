import { translator } from './i18n.ts';
import type { Pipe } from './pipe-model.ts';

/*
 * The pipe page's routing editor (docs/pipes.md, "Routing by event"): the form a pipe's
 * event_source, routes and default template make, and the pipe/update body it gives. Pure, so the
 * unit tests read it directly; the panel only draws it. The rules mirror the server's (which
 * checks again) so that a mistake shows beside its field before anything is sent.
 */

/** The server's bounds (src/domain/pipes/routing/routing.ts). */
export const ROUTE_LIMITS = { routes: 50, eventLength: 64, sourceLength: 128, pathSegments: 8 } as const;

export type SourceKind = 'none' | 'header' | 'body';

/** One row: an event and its template id, or '' for "answer, do not post". */
export interface RouteRow {
  readonly event: string;
  readonly templateId: string;
}

export interface RoutesForm {
  readonly kind: SourceKind;
  /** The header's name or the body path. */
  readonly source: string;
  readonly rows: readonly RouteRow[];
  /** '' for none. */
  readonly defaultTemplateId: string;
}

/** The field a check refuses, and the row for an event or route. */
export type RoutesProblem =
  | { readonly field: 'source'; readonly why: 'empty' | 'header' | 'body' | 'long' }
  | { readonly field: 'event'; readonly row: number; readonly why: 'empty' | 'chars' | 'long' | 'twice' }
  | { readonly field: 'rows'; readonly why: 'many' | 'noSource' | 'nothingPosts' };

export const routesForm = (pipe: Pick<Pipe, 'event_source' | 'routes' | 'template_id'>): RoutesForm => {
  const src = pipe.event_source;
  const kind: SourceKind = src?.header !== undefined ? 'header' : src?.body !== undefined ? 'body' : 'none';
  return {
    kind,
    source: src?.header ?? src?.body ?? '',
    rows: Object.entries(pipe.routes ?? {}).map(([event, id]) => ({ event, templateId: id ?? '' })),
    defaultTemplateId: pipe.template_id ?? '',
  };
};

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ROUTE_EVENT = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const BODY_PATH_SEGMENT = /^[^.\s]+$/;

export interface RoutesBody {
  id: string;
  event_source: { header: string } | { body: string } | null;
  routes: Record<string, string | null> | null;
  template_id: string | null;
}

/** The pipe/update body for the form, or the first thing wrong with it. */
export function routesBody(
  pipeId: string,
  f: RoutesForm,
): { ok: true; body: RoutesBody } | { ok: false; problem: RoutesProblem } {
  const templateId = f.defaultTemplateId === '' ? null : f.defaultTemplateId;
  if (f.kind === 'none') {
    if (f.rows.length > 0) return { ok: false, problem: { field: 'rows', why: 'noSource' } };
    return { ok: true, body: { id: pipeId, event_source: null, routes: null, template_id: templateId } };
  }
  const source = f.source.trim();
  if (source === '') return { ok: false, problem: { field: 'source', why: 'empty' } };
  if (source.length > ROUTE_LIMITS.sourceLength)
    return { ok: false, problem: { field: 'source', why: 'long' } };
  if (f.kind === 'header' && !HEADER_NAME.test(source)) {
    return { ok: false, problem: { field: 'source', why: 'header' } };
  }
  if (f.kind === 'body') {
    const segments = source.split('.');
    if (segments.length > ROUTE_LIMITS.pathSegments || !segments.every((s) => BODY_PATH_SEGMENT.test(s))) {
      return { ok: false, problem: { field: 'source', why: 'body' } };
    }
  }
  if (f.rows.length > ROUTE_LIMITS.routes) return { ok: false, problem: { field: 'rows', why: 'many' } };
  const routes: Record<string, string | null> = {};
  for (const [row, r] of f.rows.entries()) {
    const event = r.event.trim();
    if (event === '') return { ok: false, problem: { field: 'event', row, why: 'empty' } };
    if (event.length > ROUTE_LIMITS.eventLength)
      return { ok: false, problem: { field: 'event', row, why: 'long' } };
    if (!ROUTE_EVENT.test(event)) return { ok: false, problem: { field: 'event', row, why: 'chars' } };
    if (Object.hasOwn(routes, event)) return { ok: false, problem: { field: 'event', row, why: 'twice' } };
    routes[event] = r.templateId === '' ? null : r.templateId;
  }
  if (templateId === null && !Object.values(routes).some((id) => id !== null)) {
    return { ok: false, problem: { field: 'rows', why: 'nothingPosts' } };
  }
  const event_source = f.kind === 'header' ? { header: source } : { body: source };
  return { ok: true, body: { id: pipeId, event_source, routes, template_id: templateId } };
}

export const addRow = (f: RoutesForm): RoutesForm => ({
  ...f,
  rows: [...f.rows, { event: '', templateId: '' }],
});

export const removeRow = (f: RoutesForm, i: number): RoutesForm => ({
  ...f,
  rows: f.rows.filter((_, j) => j !== i),
});

export const setRow = (f: RoutesForm, i: number, patch: Partial<RouteRow>): RoutesForm => ({
  ...f,
  rows: f.rows.map((r, j) => (j === i ? { ...r, ...patch } : r)),
});

export const t = translator({
  'zh-CN': {
    heading: '模板与路由',
    intro:
      '一个管道 URL 接收发送方的全部事件：按事件名选模板。没有路由的事件用默认模板；也没有默认模板时只应答、不发送。',
    kind: '事件来源',
    none: '不路由（总是用默认模板）',
    header: '请求头',
    body: '请求体字段',
    headerName: '请求头名称',
    bodyPath: '字段路径（用 . 分隔）',
    event: '事件',
    templateOf: '事件 {event} 的模板',
    eventOf: '第 {n} 条路由的事件',
    answerOnly: '只应答，不发送',
    remove: '删除',
    removeRow: '删除路由 {n}',
    add: '添加路由',
    defaultTemplate: '默认模板',
    template: '模板',
    plain: '无（纯文本：请求体 {"content": "…"}）',
    noDefault: '无（没有路由的事件只应答）',
    save: '保存',
    saved: '已保存。',
    sourceEmpty: '请填写事件来源。',
    sourceLong: '事件来源最多 128 个字符。',
    sourceHeader: '请求头名称只能包含字母、数字和 - 等符号。',
    sourceBody: '字段路径最多 8 段，用 . 分隔，不含空白。',
    eventEmpty: '请填写事件名。',
    eventChars: '事件名只能是可见的 ASCII 字符（中间可以有空格）。',
    eventLong: '事件名最多 64 个字符。',
    eventTwice: '这个事件已经有一条路由。',
    rowsMany: '最多 50 条路由。',
    rowsNoSource: '路由需要事件来源。',
    rowsNothingPosts: '请选择默认模板，或至少一条路由到模板。',
  },
  'en-US': {
    heading: 'Template and routing',
    intro:
      "One pipe URL takes all of a sender's events: each event name picks its template. Events without a route use the default template; with no default they are answered, not posted.",
    kind: 'Event source',
    none: 'No routing (always the default template)',
    header: 'Request header',
    body: 'Body field',
    headerName: 'Header name',
    bodyPath: 'Field path (dot-separated)',
    event: 'Event',
    templateOf: 'Template for {event}',
    eventOf: 'Event of route {n}',
    answerOnly: 'Answer, do not post',
    remove: 'Remove',
    removeRow: 'Remove route {n}',
    add: 'Add a route',
    defaultTemplate: 'Default template',
    template: 'Template',
    plain: 'None (plain text: the body is {"content": "…"})',
    noDefault: 'None (events without a route are answered only)',
    save: 'Save template and routing',
    saved: 'Template and routing saved.',
    sourceEmpty: 'Name the event source.',
    sourceLong: 'The event source is at most 128 characters.',
    sourceHeader: 'A header name has letters, digits and - (no spaces).',
    sourceBody: 'A field path has at most 8 dot-separated parts, without spaces.',
    eventEmpty: 'Name the event.',
    eventChars: 'An event name is visible ASCII characters (inner spaces allowed).',
    eventLong: 'An event name is at most 64 characters.',
    eventTwice: 'This event has a route already.',
    rowsMany: 'At most 50 routes.',
    rowsNoSource: 'Routes need an event source.',
    rowsNothingPosts: 'Choose a default template, or route at least one event to a template.',
  },
});

/** The sentence shown for a problem. */
export function problemText(p: RoutesProblem): string {
  switch (p.field) {
    case 'source':
      return t(
        ({ empty: 'sourceEmpty', header: 'sourceHeader', body: 'sourceBody', long: 'sourceLong' } as const)[
          p.why
        ],
      );
    case 'event':
      return t(
        ({ empty: 'eventEmpty', chars: 'eventChars', long: 'eventLong', twice: 'eventTwice' } as const)[
          p.why
        ],
      );
    case 'rows':
      return t(
        ({ many: 'rowsMany', noSource: 'rowsNoSource', nothingPosts: 'rowsNothingPosts' } as const)[p.why],
      );
  }
}
