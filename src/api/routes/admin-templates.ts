import type Router from '@koa/router';
import type { PipeDeps } from '../../domain/pipes/runtime.js';
import {
  MAX_TEST_CHANNEL_LENGTH,
  MAX_TITLE_LENGTH,
  type TemplateInput,
} from '../../domain/templates/index.js';
import {
  createStudioTemplate,
  deleteStudioTemplate,
  duplicateStudioTemplate,
  listStudioChannels,
  listStudioTemplates,
  type ReviewVerdict,
  renderStudioTemplate,
  reviewTemplate,
  studioTemplate,
  submitStudioTemplate,
  updateStudioTemplate,
} from '../../domain/templates/studio.js';
import { type StudioTestRequest, sendStudioTest, templateUsage } from '../../domain/templates/studio-send.js';
import { ValidationError } from '../../errors/index.js';
import { TEMPLATE_SORT_FIELDS, type TemplateRecord } from '../../store/index.js';
import { botMeter, requireAdmin, requireStudio, studioScope } from '../auth.js';
import { pageMeta, parsePage } from '../paging.js';
import { reply } from '../reply.js';
import type { HeraldState } from '../state.js';
import { compileValidator, idSchema } from '../validation.js';
import { fields, input, saved, templateId, templateView } from './templates.js';

/*
 * The template studio (docs/templates.md): operators (the admin token or an operator's console
 * session) work on every bot's templates; a bot session (a bot developer signed in to the console
 * with the bot's token) on its own bot's only, and any other bot's template or bot is "not found".
 * Review verdicts are operators' alone.
 */

const listQuery = compileValidator<{ bot_id?: string; q?: string; status?: string; banned?: string }>({
  type: 'object',
  properties: {
    bot_id: idSchema,
    q: { type: 'string', maxLength: MAX_TITLE_LENGTH },
    status: { type: 'string', enum: ['0', '1', '2', '3'] },
    banned: { type: 'string', enum: ['true', 'false'] },
  },
});
const idQuery = compileValidator<{ id: string }>({
  type: 'object',
  properties: { id: templateId },
  required: ['id'],
});
const botQuery = compileValidator<{ bot_id?: string }>({
  type: 'object',
  properties: { bot_id: idSchema },
});
const createBody = compileValidator<TemplateInput & { title: string; content: string; bot_id?: string }>({
  type: 'object',
  properties: { bot_id: idSchema, ...fields },
  required: ['title', 'content'],
});
const updateBody = compileValidator<TemplateInput & { id: string }>({
  type: 'object',
  properties: { id: templateId, ...fields },
  required: ['id'],
});
const duplicateBody = compileValidator<{ id: string; title?: string }>({
  type: 'object',
  properties: { id: templateId, title: fields.title },
  required: ['id'],
});
const idBody = idQuery;
const renderBody = compileValidator<{
  id?: string;
  bot_id?: string;
  content?: string;
  msgtype?: number;
  data?: unknown;
  channel_id?: string;
}>({
  type: 'object',
  properties: {
    id: templateId,
    bot_id: idSchema,
    content: fields.content,
    msgtype: fields.msgtype,
    data: {},
    channel_id: { type: 'string', minLength: 1, maxLength: MAX_TEST_CHANNEL_LENGTH },
  },
});
const reviewBody = compileValidator<{
  id: string;
  action: ReviewVerdict;
  consumption?: number;
  version?: number;
}>({
  type: 'object',
  properties: {
    id: templateId,
    action: { type: 'string', enum: ['approve', 'reject', 'ban', 'unban'] },
    consumption: { type: 'number' },
    // The version the reviewer read: a template changed since is refused (409).
    version: { type: 'integer', minimum: 0 },
  },
  required: ['id', 'action'],
});

/** A template as bots see it (test_data and test_channel included), and whose it is. */
const view = (t: TemplateRecord) => ({ ...templateView(t), bot_id: t.bot_id });

/** The bucket of the studio's test messages, per bot: the bot REST budget (BOT_RATE_*). */
const SEND_TEST_BUCKET = 'template/send-test';

export function adminTemplateRoutes(router: Router<HeraldState>, deps: PipeDeps): void {
  const studio = requireStudio(deps);
  const admin = requireAdmin(deps);
  /*
   * A bot session's calls that cost something (a save runs a test render; usage scans the
   * queue; channels reads every server of the bot) take the bot's REST budget, under the bucket of the bot API call doing the same work,
   * so that the studio is no way around it. Reads of one record are not metered.
   */
  const metered = (bucket: string) => requireStudio(deps, bucket);
  const meter = botMeter(deps);

  router.get('/admin/api/template/list', metered('template/list'), async (ctx) => {
    const q = listQuery(ctx.query);
    const { request, sortEcho } = parsePage(ctx.query, Object.keys(TEMPLATE_SORT_FIELDS), 'created_at');
    const page = await listStudioTemplates(deps, studioScope(ctx.state), request, {
      ...(q.bot_id !== undefined ? { bot_id: q.bot_id } : {}),
      ...(q.q !== undefined ? { q: q.q } : {}),
      ...(q.status !== undefined ? { status: Number(q.status) } : {}),
      ...(q.banned !== undefined ? { banned: q.banned === 'true' } : {}),
    });
    reply(ctx, { items: page.items.map(view), meta: pageMeta(request, page.total), sort: sortEcho });
  });

  router.get('/admin/api/template/view', studio, async (ctx) => {
    const { id } = idQuery(ctx.query);
    reply(ctx, { template: view((await studioTemplate(deps, studioScope(ctx.state), id)).template) });
  });

  router.get('/admin/api/template/usage', metered('template/usage'), async (ctx) => {
    const { id } = idQuery(ctx.query);
    reply(ctx, await templateUsage(deps, studioScope(ctx.state), id));
  });

  router.get('/admin/api/template/channels', metered('template/channels'), async (ctx) => {
    const { bot_id } = botQuery(ctx.query);
    reply(ctx, { items: await listStudioChannels(deps, studioScope(ctx.state), bot_id) });
  });

  router.post('/admin/api/template/create', metered('template/create'), async (ctx) => {
    const body = createBody(ctx.request.body);
    const s = await createStudioTemplate(deps, studioScope(ctx.state), body.bot_id, {
      ...input(body),
      title: body.title,
      content: body.content,
    });
    reply(ctx, saved(s, ctx.state.lang, view));
  });

  router.post('/admin/api/template/update', metered('template/update'), async (ctx) => {
    const body = updateBody(ctx.request.body);
    const s = await updateStudioTemplate(deps, studioScope(ctx.state), body.id, input(body));
    reply(ctx, saved(s, ctx.state.lang, view));
  });

  router.post('/admin/api/template/duplicate', metered('template/create'), async (ctx) => {
    const body = duplicateBody(ctx.request.body);
    const s = await duplicateStudioTemplate(deps, studioScope(ctx.state), body.id, body.title);
    reply(ctx, saved(s, ctx.state.lang, view));
  });

  router.post('/admin/api/template/delete', metered('template/delete'), async (ctx) => {
    const { id } = idBody(ctx.request.body);
    await deleteStudioTemplate(deps, studioScope(ctx.state), id);
    reply(ctx, {});
  });

  // The preview: a bot session's share the bot's render budget.
  router.post('/admin/api/template/render', metered('template/render'), async (ctx) => {
    const req = renderRequest(ctx.request.body, ctx.request.rawBody);
    const { type, content, warnings, warningCount } = (
      await renderStudioTemplate(deps, studioScope(ctx.state), req)
    ).message;
    // The warnings PHP would have gone past too, for the editor to mark (docs/templates.md)
    reply(ctx, { type, content, warnings, warning_count: warningCount });
  });

  router.post('/admin/api/template/send-test', studio, async (ctx) => {
    const req = renderRequest(ctx.request.body, ctx.request.rawBody);
    // Each test message is a real message of the bot: the door meters them per bot, as the
    // bot's REST routes are, before anything is rendered.
    const admit = (bot: { id: string }) => meter(ctx, bot.id, SEND_TEST_BUCKET);
    reply(ctx, await sendStudioTest(deps, studioScope(ctx.state), req, admit));
  });

  router.post('/admin/api/template/submit', metered('template/submit'), async (ctx) => {
    const { id } = idBody(ctx.request.body);
    reply(ctx, { model: view(await submitStudioTemplate(deps, studioScope(ctx.state), id)) });
  });

  // Operators only: a bot session is refused (403) by requireAdmin.
  router.post('/admin/api/template/review', admin, async (ctx) => {
    const body = reviewBody(ctx.request.body);
    if (body.consumption !== undefined && body.action !== 'approve') {
      throw new ValidationError('consumption', {
        'zh-CN': '只能与 approve 一起使用',
        'en-US': 'goes only with approve',
      });
    }
    reply(ctx, {
      model: view(await reviewTemplate(deps, body.id, body.action, body.consumption, body.version)),
    });
  });
}

/** A render or send-test body, `data` read again from the body's text in a send's key order. */
function renderRequest(raw: unknown, rawBody: unknown): StudioTestRequest {
  const body = renderBody(raw);
  return {
    id: body.id,
    bot_id: body.bot_id,
    content: body.content,
    msgtype: body.msgtype,
    data: body.data,
    dataIsText: typeof body.data === 'string',
    // The body reader keeps the body's text: `data` is read again from it in a send's key order.
    bodyText: typeof rawBody === 'string' ? rawBody : undefined,
    channel_id: body.channel_id,
  };
}
