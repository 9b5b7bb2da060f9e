import type Router from '@koa/router';
import { listDeadDeliveries, replayDelivery } from '../../domain/deliveries/dead-letters.js';
import type { PipeDeps } from '../../domain/pipes/runtime.js';
import { PIPE_JOB_NAME, type PipeJob } from '../../queue/pipe-messages.js';
import { asRedisDependencyError } from '../../ratelimit/redis-errors.js';
import type { DeliveryRecord } from '../../store/index.js';
import { requireAdmin } from '../auth.js';
import { pageMeta, parsePage } from '../paging.js';
import { reply } from '../reply.js';
import type { HeraldState } from '../state.js';
import { compileValidator, idSchema } from '../validation.js';

const listQuery = compileValidator<{ status?: 'failed'; bot_id?: string; pipe_id?: string }>({
  type: 'object',
  properties: { status: { enum: ['failed'] }, bot_id: idSchema, pipe_id: idSchema },
});

const replayBody = compileValidator<{ msg_id: string }>({
  type: 'object',
  properties: { msg_id: idSchema },
  required: ['msg_id'],
});

const view = (d: DeliveryRecord) => ({ ...d });

export function adminDeliveryRoutes(router: Router<HeraldState>, deps: PipeDeps): void {
  const admin = requireAdmin(deps);

  // Dead messages (failed for good), newest first, with their reason.
  router.get('/admin/api/delivery/list', admin, async (ctx) => {
    const q = listQuery(ctx.query);
    const { request } = parsePage({ ...ctx.query, sort: undefined }, ['updated_at'], '-updated_at');
    const page = await listDeadDeliveries(
      deps,
      { ...(q.bot_id ? { bot_id: q.bot_id } : {}), ...(q.pipe_id ? { pipe_id: q.pipe_id } : {}) },
      request,
    );
    reply(ctx, {
      items: page.items.map(view),
      meta: pageMeta(request, page.total),
      sort: { updated_at: -1 },
    });
  });

  // Sends a dead message again (same msg_id), e.g. after the bot got its permission back.
  router.post('/admin/api/delivery/replay', admin, async (ctx) => {
    const { msg_id } = replayBody(ctx.request.body);
    const queue = deps.pipeRuntime.queue;
    const record = await replayDelivery(deps, msg_id, async (id, job) => {
      // Redis away: 503 like every other request that needs it, not a 500. (Not for remove():
      // BullMQ refuses to remove a locked job with an error of its own, a 500.)
      const old = await queue.getJob(id).catch((err: unknown) => {
        throw asRedisDependencyError(err);
      });
      if (old) await old.remove();
      await queue.add(PIPE_JOB_NAME, job as unknown as PipeJob, { jobId: id }).catch((err: unknown) => {
        throw asRedisDependencyError(err);
      });
    });
    reply(ctx, { delivery: view(record) });
  });
}
