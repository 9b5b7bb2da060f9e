import type Router from '@koa/router';
import type { Deps } from '../../domain/deps.js';
import {
  createTemplate,
  deleteTemplate,
  listTemplates,
  MAX_CONTENT_LENGTH,
  MAX_TEST_CHANNEL_LENGTH,
  MAX_TEST_DATA_LENGTH,
  MAX_TITLE_LENGTH,
  MSGTYPES,
  previewTemplate,
  type SavedTemplate,
  submitTemplate,
  TEMPLATE_TYPES,
  type TemplateInput,
  updateTemplate,
} from '../../domain/templates/index.js';
import type { HeraldError, Lang } from '../../errors/index.js';
import { TEMPLATE_ID_LENGTH, TEMPLATE_SORT_FIELDS, type TemplateRecord } from '../../store/index.js';
import { requireBot } from '../auth.js';
import { pageMeta, parsePage } from '../paging.js';
import { reply } from '../reply.js';
import type { HeraldState } from '../state.js';
import { compileValidator } from '../validation.js';

export const templateId = { type: 'string', minLength: 1, maxLength: TEMPLATE_ID_LENGTH } as const;

/** The fields a template is created and updated with (spec 2.2), as the studio also takes them. */
export const fields = {
  title: { type: 'string', minLength: 1, maxLength: MAX_TITLE_LENGTH },
  content: { type: 'string', minLength: 1, maxLength: MAX_CONTENT_LENGTH },
  type: { type: 'integer', enum: TEMPLATE_TYPES },
  msgtype: { type: 'integer', enum: MSGTYPES },
  test_data: { type: 'string', maxLength: MAX_TEST_DATA_LENGTH },
  test_channel: { type: 'string', maxLength: MAX_TEST_CHANNEL_LENGTH },
} as const;

const createBody = compileValidator<TemplateInput & { title: string; content: string }>({
  type: 'object',
  properties: fields,
  required: ['title', 'content'],
});
const updateBody = compileValidator<TemplateInput & { id: string }>({
  type: 'object',
  properties: { id: templateId, ...fields },
  required: ['id'],
});
const idBody = compileValidator<{ id: string }>({
  type: 'object',
  properties: { id: templateId },
  required: ['id'],
});
const renderBody = compileValidator<{
  id?: string;
  content?: string;
  msgtype?: number;
  data?: unknown;
  channel_id?: string;
}>({
  type: 'object',
  properties: {
    id: templateId,
    content: fields.content,
    msgtype: fields.msgtype,
    data: {},
    channel_id: { type: 'string', minLength: 1, maxLength: MAX_TEST_CHANNEL_LENGTH },
  },
});

/** Copies only known fields, so unknown body fields never travel further. */
export const input = (b: TemplateInput): TemplateInput => ({
  title: b.title,
  content: b.content,
  type: b.type,
  msgtype: b.msgtype,
  test_data: b.test_data,
  test_channel: b.test_channel,
});

/** A template as bots see it: the fields of spec 2.2, then Herald's extras. */
export const templateView = (t: TemplateRecord) => ({
  id: t.id,
  title: t.title,
  type: t.type,
  msgtype: t.msgtype,
  status: t.status,
  test_data: t.test_data,
  test_channel: t.test_channel,
  content: t.content,
  version: t.version,
  banned: t.banned,
  consumption: t.consumption,
  created_at: t.created_at,
  updated_at: t.updated_at,
});

const warning = (err: HeraldError, lang: Lang) => ({
  ...(err.data ?? {}),
  code: err.code,
  message: err.localizedMessage(lang),
});

/** A save's answer: the model (as `view` shows it) and its test render's warnings. */
export const saved = (s: SavedTemplate, lang: Lang, view: (t: TemplateRecord) => object = templateView) => ({
  model: view(s.model),
  warnings: s.warnings.map((w) => warning(w, lang)),
});

export function templateRoutes(router: Router<HeraldState>, deps: Deps): void {
  router.get('/api/v3/template/list', requireBot(deps, 'template/list'), async (ctx) => {
    const { request, sortEcho } = parsePage(ctx.query, Object.keys(TEMPLATE_SORT_FIELDS), 'created_at');
    const page = await listTemplates(deps, ctx.state.bot!, request);
    reply(ctx, { items: page.items.map(templateView), meta: pageMeta(request, page.total), sort: sortEcho });
  });

  router.post('/api/v3/template/create', requireBot(deps, 'template/create'), async (ctx) => {
    const body = createBody(ctx.request.body);
    const s = await createTemplate(deps, ctx.state.bot!, {
      ...input(body),
      title: body.title,
      content: body.content,
    });
    reply(ctx, saved(s, ctx.state.lang));
  });

  router.post('/api/v3/template/update', requireBot(deps, 'template/update'), async (ctx) => {
    const body = updateBody(ctx.request.body);
    reply(ctx, saved(await updateTemplate(deps, ctx.state.bot!, body.id, input(body)), ctx.state.lang));
  });

  router.post('/api/v3/template/delete', requireBot(deps, 'template/delete'), async (ctx) => {
    const { id } = idBody(ctx.request.body);
    await deleteTemplate(deps, ctx.state.bot!, id);
    reply(ctx, {});
  });

  // Herald's addition: a bot asks for its template's review (0 not reviewed or 3 rejected -> 1).
  router.post('/api/v3/template/submit', requireBot(deps, 'template/submit'), async (ctx) => {
    const { id } = idBody(ctx.request.body);
    reply(ctx, { model: templateView(await submitTemplate(deps, ctx.state.bot!, id)) });
  });

  router.post('/api/v3/template/render', requireBot(deps, 'template/render'), async (ctx) => {
    const body = renderBody(ctx.request.body);
    const message = await previewTemplate(deps, ctx.state.bot!, {
      id: body.id,
      content: body.content,
      msgtype: body.msgtype,
      data: body.data,
      dataIsText: typeof body.data === 'string',
      // The body reader keeps the body's text: `data` is read again from it in a send's key order.
      bodyText: typeof ctx.request.rawBody === 'string' ? ctx.request.rawBody : undefined,
      channel_id: body.channel_id,
    });
    // The platform's answer: the message only (the studio's render also answers the warnings).
    reply(ctx, { type: message.type, content: message.content });
  });
}
