import type Router from '@koa/router';
import type { PipeDeps } from '../../domain/pipes/runtime.js';
import { metricsFor } from '../../metrics/index.js';
import { pipeProbes } from '../../queue/probes.js';
import { requireAdmin } from '../auth.js';
import type { HeraldState } from '../state.js';

/**
 * GET /metrics: this web process's metrics in the Prometheus text format (not the envelope: a
 * Prometheus scraper reads it). It is on the public API port, so it takes the operators' token
 * (`Authorization: Bearer $ADMIN_TOKEN`) as /admin/api does; a refusal is the usual envelope.
 */
export function metricsRoutes(router: Router<HeraldState>, deps: PipeDeps): void {
  const metrics = metricsFor(deps);
  metrics.setProbes(pipeProbes(deps.pipeRuntime.queues.all));
  router.get('/metrics', requireAdmin(deps), async (ctx) => {
    ctx.status = 200;
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
}
