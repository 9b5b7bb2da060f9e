import type Router from '@koa/router';
import { readOverview } from '../../domain/overview.js';
import type { PipeDeps } from '../../domain/pipes/runtime.js';
import { requireAdmin } from '../auth.js';
import { reply } from '../reply.js';
import type { HeraldState } from '../state.js';

export function adminOverviewRoutes(router: Router<HeraldState>, deps: PipeDeps): void {
  // The console's overview: services, queue depth, recent sends, dead letters by reason and
  // the worker processes seen. Answered even with a service down (that part is null).
  router.get('/admin/api/overview', requireAdmin(deps), async (ctx) => {
    reply(ctx, await readOverview(deps));
  });
}
