import type Router from '@koa/router';
import type { Deps } from '../../domain/deps.js';
import { getTemplateAnyBot, listTemplatesAnyBot } from '../../domain/templates/index.js';
import { TEMPLATE_ID_LENGTH, TEMPLATE_SORT_FIELDS, type TemplateRecord } from '../../store/index.js';
import { requireAdmin } from '../auth.js';
import { pageMeta, parsePage } from '../paging.js';
import { reply } from '../reply.js';
import type { HeraldState } from '../state.js';
import { compileValidator, idSchema } from '../validation.js';
import { templateView } from './templates.js';

/*
 * Templates in the back office, read-only (operators: the admin token or the console session).
 * Bots write their templates through /api/v3/template/*; operators' editing is a later issue.
 */

const listQuery = compileValidator<{ bot_id?: string }>({
  type: 'object',
  properties: { bot_id: idSchema },
});
const viewQuery = compileValidator<{ id: string }>({
  type: 'object',
  properties: { id: { type: 'string', minLength: 1, maxLength: TEMPLATE_ID_LENGTH } },
  required: ['id'],
});

/** A template as bots see it (test_data and test_channel included), and whose it is. */
const view = (t: TemplateRecord) => ({ ...templateView(t), bot_id: t.bot_id });

export function adminTemplateRoutes(router: Router<HeraldState>, deps: Deps): void {
  const admin = requireAdmin(deps);

  router.get('/admin/api/template/list', admin, async (ctx) => {
    const { bot_id } = listQuery(ctx.query);
    const { request, sortEcho } = parsePage(ctx.query, Object.keys(TEMPLATE_SORT_FIELDS), 'created_at');
    const page = await listTemplatesAnyBot(deps, request, bot_id === undefined ? {} : { bot_id });
    reply(ctx, { items: page.items.map(view), meta: pageMeta(request, page.total), sort: sortEcho });
  });

  router.get('/admin/api/template/view', admin, async (ctx) => {
    const { id } = viewQuery(ctx.query);
    reply(ctx, { template: view(await getTemplateAnyBot(deps, id)) });
  });
}
