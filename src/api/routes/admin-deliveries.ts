import type Router from '@koa/router';
import {
  type DeadFilter,
  REPLAY_BATCH_MAX,
  type Requeue,
  replayDeadDeliveries,
  replayDelivery,
} from '../../domain/deliveries/dead-letters.js';
import { countReplayable, listDeliveries, viewDelivery } from '../../domain/deliveries/delivery-view.js';
import { readableRecord } from '../../domain/deliveries/failure-text.js';
import { DEAD, DELIVERY_STAGES, type StageFilter } from '../../domain/deliveries/lifecycle.js';
import type { PipeDeps } from '../../domain/pipes/runtime.js';
import { ValidationError } from '../../errors/index.js';
import type { PipeJob } from '../../queue/pipe-messages.js';
import { DELIVERY_SORT_FIELDS } from '../../store/index.js';
import { requireAdmin, requireStudio, studioScope } from '../auth.js';
import { pageMeta, parsePage } from '../paging.js';
import { reply } from '../reply.js';
import type { HeraldState } from '../state.js';
import { compileValidator, idSchema } from '../validation.js';

/** A reason code as records hold it (REASON, or a render error's catalogue key). */
const reasonSchema = { type: 'string', pattern: '^[A-Z][A-Z0-9_]{0,63}$' } as const;

/** A time in ms, as a query string carries it. */
const msSchema = {
  type: 'string',
  pattern: '^[0-9]{1,15}$',
  'x-pattern': { 'zh-CN': '毫秒时间戳', 'en-US': 'ms since the epoch' },
} as const;

const listQuery = compileValidator<{
  status?: StageFilter;
  bot_id?: string;
  pipe_id?: string;
  reason?: string;
  since?: string;
  until?: string;
}>({
  type: 'object',
  properties: {
    status: { enum: [...DELIVERY_STAGES, 'any'] },
    bot_id: idSchema,
    pipe_id: idSchema,
    reason: reasonSchema,
    since: msSchema,
    until: msSchema,
  },
});

const viewQuery = compileValidator<{ msg_id: string }>({
  type: 'object',
  properties: { msg_id: idSchema },
  required: ['msg_id'],
});

const replayBody = compileValidator<{ msg_id: string }>({
  type: 'object',
  properties: { msg_id: idSchema },
  required: ['msg_id'],
});

const replayBatchBody = compileValidator<{
  bot_id?: string;
  pipe_id?: string;
  reason?: string;
  limit?: number;
  died_before?: number;
  msg_id?: unknown;
}>({
  type: 'object',
  properties: {
    bot_id: idSchema,
    pipe_id: idSchema,
    reason: reasonSchema,
    limit: { type: 'integer', minimum: 1, maximum: REPLAY_BATCH_MAX },
    died_before: { type: 'integer', minimum: 0 },
    // Refused below, by name: not a filter here (see the route).
    msg_id: {},
  },
});
/** Dead messages one bulk replay sends when the caller does not say. */
const REPLAY_BATCH_DEFAULT = 100;

/** A filter of the dead-letter list from the request's fields that are set. */
const deadFilter = (q: { bot_id?: string; pipe_id?: string; reason?: string }): DeadFilter => ({
  ...(q.bot_id ? { bot_id: q.bot_id } : {}),
  ...(q.pipe_id ? { pipe_id: q.pipe_id } : {}),
  ...(q.reason ? { reason: q.reason } : {}),
});

/** Replays put the message's job back through the pipe queue's one owner. */
const requeueOn =
  (deps: PipeDeps): Requeue =>
  (id, job) =>
    deps.pipeRuntime.messages.requeue(id, job as unknown as PipeJob);

export function adminDeliveryRoutes(router: Router<HeraldState>, deps: PipeDeps): void {
  const admin = requireAdmin(deps);

  // Delivery records, latest change first (or `sort`: [-]updated_at, [-]created_at). By
  // default the dead messages (failed for good) with their reason; `status` picks another stage
  // of the lifecycle (queued, rate_limited, retrying, sent, failed, replayed) or any, and
  // bot_id, pipe_id, reason, since and until (ms, on created_at) narrow it. For dead letters,
  // meta.replayable says how many of them a replay can still send (input not yet expired).
  router.get('/admin/api/delivery/list', admin, async (ctx) => {
    const q = listQuery(ctx.query);
    const { request } = parsePage(ctx.query, DELIVERY_SORT_FIELDS, '-updated_at');
    const filter = {
      stage: q.status ?? DEAD,
      ...deadFilter(q),
      ...(q.since !== undefined ? { since: Number(q.since) } : {}),
      ...(q.until !== undefined ? { until: Number(q.until) } : {}),
    };
    const [page, replayable] = await Promise.all([
      listDeliveries(deps, filter, request, ctx.state.lang),
      countReplayable(deps, filter),
    ]);
    reply(ctx, {
      items: page.items,
      // Dead letters: how many of the `total` can still be replayed (their input is kept).
      meta: { ...pageMeta(request, page.total), ...(replayable === null ? {} : { replayable }) },
      sort: { [request.sort.field]: request.sort.dir },
    });
  });

  // One message's delivery: its record with its status history and the message as sent; a
  // message still in the queue, not recorded yet, as its job says (queued, empty history).
  // A bot developer's studio session may read its own bot's (its test sends').
  router.get('/admin/api/delivery/view', requireStudio(deps, 'delivery/view'), async (ctx) => {
    const { msg_id } = viewQuery(ctx.query);
    const delivery = await viewDelivery(deps, msg_id, studioScope(ctx.state).botId, ctx.state.lang);
    reply(ctx, { delivery });
  });

  // Sends a dead message again (same msg_id), e.g. after the bot got its permission back.
  router.post('/admin/api/delivery/replay', admin, async (ctx) => {
    const { msg_id } = replayBody(ctx.request.body);
    const record = await replayDelivery(deps, msg_id, requeueOn(deps));
    reply(ctx, { delivery: readableRecord(record, ctx.state.lang) });
  });

  // Sends many dead messages again: those of a bot, a pipe and/or a reason that died before
  // `died_before` (ms; default: when the call started), oldest death first, `limit` at a time
  // (default 100, at most 500). `remaining` says how many such messages are left; calling again
  // with the `died_before` it answered goes on with them and never picks up a message that this
  // run replayed and that died again, so a loop until `remaining` is 0 ends.
  router.post('/admin/api/delivery/replay-batch', admin, async (ctx) => {
    const body = replayBatchBody(ctx.request.body);
    // Unknown fields are ignored everywhere else; this one would widen a single replay to every
    // dead message of the bot or pipe given with it.
    if (body.msg_id !== undefined) {
      throw new ValidationError('msg_id', {
        'zh-CN': '批量重发不按 msg_id 选择；单条消息请用 /admin/api/delivery/replay',
        'en-US': 'is not a filter of a bulk replay; replay one message with /admin/api/delivery/replay',
      });
    }
    const filter = deadFilter(body);
    if (Object.keys(filter).length === 0) {
      throw new ValidationError('', {
        'zh-CN': '至少指定 bot_id、pipe_id 或 reason 之一',
        'en-US': 'give at least one of bot_id, pipe_id and reason',
      });
    }
    const diedBefore = body.died_before ?? deps.now();
    const done = await replayDeadDeliveries(
      deps,
      { ...filter, died_before: diedBefore },
      body.limit ?? REPLAY_BATCH_DEFAULT,
      requeueOn(deps),
    );
    reply(ctx, {
      replayed: done.replayed,
      skipped: done.skipped.map((s) => ({
        msg_id: s.msg_id,
        code: s.error.code,
        message: s.error.localizedMessage(ctx.state.lang),
      })),
      remaining: done.remaining,
      died_before: diedBefore,
    });
  });
}
