import type Router from '@koa/router';
import { listChannelMessages } from '../../domain/deliveries/timeline.js';
import type { Deps } from '../../domain/deps.js';
import { requireBot } from '../auth.js';
import { pageMeta, parsePage } from '../paging.js';
import { reply } from '../reply.js';
import type { HeraldState } from '../state.js';
import { compileValidator, idSchema } from '../validation.js';

const listQuery = compileValidator<{ target_id: string }>({
  type: 'object',
  properties: { target_id: idSchema },
  required: ['target_id'],
});

export function messageRoutes(router: Router<HeraldState>, deps: Deps): void {
  // GET /api/v3/message/list?target_id=&page=&page_size=: a channel's timeline, newest first.
  router.get('/api/v3/message/list', requireBot(deps, 'message/list'), async (ctx) => {
    const { target_id } = listQuery(ctx.query);
    // Always newest first, as the platform lists messages; `sort` is not offered.
    const { request } = parsePage({ ...ctx.query, sort: undefined }, ['create_at'], '-create_at');
    const page = await listChannelMessages(deps, ctx.state.bot!, target_id, request);
    reply(ctx, { items: page.items, meta: pageMeta(request, page.total), sort: { create_at: -1 } });
  });
}
