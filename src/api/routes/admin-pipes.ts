import type Router from '@koa/router';
import { clearCaptures, listCaptures } from '../../domain/pipes/captures.js';
import {
  GROUPING_MODES,
  MAX_GROUP_KEY_TEMPLATE,
  MAX_GROUP_WINDOW_S,
  MAX_THROTTLE_LIMIT,
  MIN_GROUP_WINDOW_S,
} from '../../domain/pipes/grouping.js';
import { acceptPipeMessage, PIPE_BUCKET, takePipeBudget } from '../../domain/pipes/ingest.js';
import {
  createPipe,
  deletePipe,
  getPipe,
  getPipeInScope,
  listPipes,
  type PipeInput,
  pipeView,
  rotatePipeToken,
  updatePipe,
} from '../../domain/pipes/pipes.js';
import { createPresetPipe, PIPE_PRESET_IDS, type PipePresetId } from '../../domain/pipes/routing/presets.js';
import { MAX_EVENT_SOURCE_LENGTH, MAX_ROUTES } from '../../domain/pipes/routing/routing.js';
import type { PipeDeps } from '../../domain/pipes/runtime.js';
import { testMessage } from '../../domain/pipes/send-test.js';
import { ValidationError } from '../../errors/index.js';
import { OVERFLOW_MODES, type Overflow } from '../../render/index.js';
import type { PipeEventSource, PipeGrouping, PipeRateLimit, PipeRoutes } from '../../store/index.js';
import { requireAdmin, requireStudio, studioScope } from '../auth.js';
import { pageMeta, parsePage } from '../paging.js';
import { rateLimitHeaders, refuseIfLimited } from '../rate-headers.js';
import { reply } from '../reply.js';
import type { HeraldState } from '../state.js';
import { compileValidator, idSchema } from '../validation.js';
import {
  adminPipeSignatureRoutes,
  type SignatureBody,
  signatureNotUpdatable,
  signatureSchema,
  signatureSettingOf,
} from './admin-pipe-signatures.js';

/** Largest per-pipe budget an operator may set (burst in messages, refill per second). */
export const MAX_PIPE_RATE = 1_000_000;
/** Slowest refill an operator may set, in messages per second (one per 100 s). */
export const MIN_PIPE_REFILL = 0.01;

const rateLimitSchema = {
  type: ['object', 'null'],
  properties: {
    capacity: { type: 'integer', minimum: 1, maximum: MAX_PIPE_RATE },
    per_second: { type: 'number', minimum: MIN_PIPE_REFILL, maximum: MAX_PIPE_RATE },
  },
  required: ['capacity', 'per_second'],
} as const;

const pipeFields = {
  title: { type: 'string', minLength: 1, maxLength: 64 },
  channel_id: idSchema,
  template_id: { type: ['string', 'null'], minLength: 1, maxLength: 64 },
  enabled: { type: 'boolean' },
  rate_limit: rateLimitSchema,
  capture: { type: 'boolean' },
  overflow: { type: 'string', enum: [...OVERFLOW_MODES] },
  // Exactly one of the two (eventSourceOf); the finer rules are the domain's (routing.ts).
  event_source: {
    type: ['object', 'null'],
    properties: {
      header: { type: 'string', minLength: 1, maxLength: MAX_EVENT_SOURCE_LENGTH },
      body: { type: 'string', minLength: 1, maxLength: MAX_EVENT_SOURCE_LENGTH },
    },
  },
  routes: {
    type: ['object', 'null'],
    maxProperties: MAX_ROUTES,
    additionalProperties: { type: ['string', 'null'], minLength: 1, maxLength: 64 },
  },
  // The finer rules (limit with throttle only, a key template that compiles) are the domain's.
  grouping: {
    type: ['object', 'null'],
    properties: {
      key: { type: 'string', minLength: 1, maxLength: MAX_GROUP_KEY_TEMPLATE },
      mode: { type: 'string', enum: [...GROUPING_MODES] },
      window_s: { type: 'integer', minimum: MIN_GROUP_WINDOW_S, maximum: MAX_GROUP_WINDOW_S },
      limit: { type: ['integer', 'null'], minimum: 1, maximum: MAX_THROTTLE_LIMIT },
    },
    required: ['key', 'mode', 'window_s'],
    additionalProperties: false,
  },
} as const;

interface PipeBody {
  title?: string;
  channel_id?: string;
  template_id?: string | null;
  enabled?: boolean;
  rate_limit?: PipeRateLimit | null;
  capture?: boolean;
  overflow?: Overflow;
  event_source?: { header?: string; body?: string } | null;
  routes?: Record<string, string | null> | null;
  grouping?: { key: string; mode: PipeGrouping['mode']; window_s: number; limit?: number | null } | null;
}

const createBody = compileValidator<
  PipeBody & {
    bot_id: string;
    title: string;
    channel_id: string;
    preset?: PipePresetId;
    signature?: SignatureBody;
  }
>({
  type: 'object',
  properties: {
    bot_id: idSchema,
    ...pipeFields,
    preset: { type: 'string', enum: [...PIPE_PRESET_IDS] },
    signature: signatureSchema,
  },
  required: ['bot_id', 'title', 'channel_id'],
});
const updateBody = compileValidator<PipeBody & { id: string }>({
  type: 'object',
  properties: { id: idSchema, ...pipeFields },
  required: ['id'],
});
const idInput = compileValidator<{ id: string }>({
  type: 'object',
  properties: { id: idSchema },
  required: ['id'],
});
const listFilter = compileValidator<{ bot_id?: string }>({
  type: 'object',
  properties: { bot_id: idSchema },
});

/** `{header}` or `{body}`, exactly one; null and absent as they are. */
function eventSourceOf(s: PipeBody['event_source']): PipeEventSource | null | undefined {
  if (s === undefined || s === null) return s;
  if (s.header !== undefined && s.body === undefined) return { header: s.header };
  if (s.body !== undefined && s.header === undefined) return { body: s.body };
  throw new ValidationError('event_source', {
    'zh-CN': '必须且只能有 header 或 body 之一',
    'en-US': 'must have exactly one of header or body',
  });
}

/** Routes as a plain record of the events given (null: none). */
const routesOf = (r: PipeBody['routes']): PipeRoutes | null | undefined =>
  r === undefined || r === null ? r : Object.fromEntries(Object.entries(r));

/** Copies only known fields, so unknown body fields never travel further. */
const pipeInput = (b: PipeBody): PipeInput => ({
  title: b.title,
  channel_id: b.channel_id,
  template_id: b.template_id,
  enabled: b.enabled,
  rate_limit:
    b.rate_limit === undefined || b.rate_limit === null
      ? b.rate_limit
      : { capacity: b.rate_limit.capacity, per_second: b.rate_limit.per_second },
  capture: b.capture,
  overflow: b.overflow,
  event_source: eventSourceOf(b.event_source),
  routes: routesOf(b.routes),
  grouping:
    b.grouping === undefined || b.grouping === null
      ? b.grouping
      : {
          key: b.grouping.key,
          mode: b.grouping.mode,
          window_s: b.grouping.window_s,
          limit: b.grouping.limit ?? null,
        },
});

/** Back office for inbound pipes (operators: `Authorization: Bearer $ADMIN_TOKEN`). */
export function adminPipeRoutes(router: Router<HeraldState>, deps: PipeDeps): void {
  const admin = requireAdmin(deps);
  const studio = requireStudio(deps);

  router.post('/admin/api/pipe/create', admin, async (ctx) => {
    const body = createBody(ctx.request.body);
    const input = {
      ...pipeInput(body),
      bot_id: body.bot_id,
      title: body.title,
      channel_id: body.channel_id,
      ...(body.signature !== undefined ? { signature: signatureSettingOf(body.signature) } : {}),
    };
    if (body.preset === undefined) {
      reply(ctx, await createPipe(deps, input));
      return;
    }
    // A preset sets the routing itself.
    for (const field of ['event_source', 'routes'] as const) {
      if (body[field] !== undefined) {
        throw new ValidationError(field, {
          'zh-CN': '不能与 preset 同时设置',
          'en-US': 'cannot be set with a preset',
        });
      }
    }
    reply(ctx, await createPresetPipe(deps, body.preset, input, ctx.state.lang));
  });

  router.post('/admin/api/pipe/update', admin, async (ctx) => {
    const body = updateBody(ctx.request.body);
    // Not silently ignored: a new secret must be shown, which an update's answer does not do.
    if ((body as { signature?: unknown }).signature !== undefined) throw signatureNotUpdatable();
    reply(ctx, { pipe: pipeView(deps, await updatePipe(deps, body.id, pipeInput(body))) });
  });

  router.post('/admin/api/pipe/rotate-token', admin, async (ctx) => {
    const { id } = idInput(ctx.request.body);
    reply(ctx, await rotatePipeToken(deps, id));
  });

  router.post('/admin/api/pipe/delete', admin, async (ctx) => {
    const { id } = idInput(ctx.request.body);
    await deletePipe(deps, id);
    reply(ctx, {});
  });

  /**
   * A test message through the door's own steps after the token (send-pipemsg's handler): the
   * pipe's budget, then the queue. It counts against the pipe's budget like any message.
   */
  router.post('/admin/api/pipe/send-test', admin, async (ctx) => {
    const { id } = idInput(ctx.request.body);
    const { pipe, request } = await testMessage(deps, id, ctx.state.lang);
    const budget = await takePipeBudget(deps, pipe);
    ctx.set(rateLimitHeaders(budget, PIPE_BUCKET));
    refuseIfLimited(budget);
    const accepted = await acceptPipeMessage(deps, pipe, request);
    reply(ctx, { msg_id: accepted.msg_id });
  });

  router.get('/admin/api/pipe/view', admin, async (ctx) => {
    const { id } = idInput(ctx.query);
    reply(ctx, { pipe: pipeView(deps, await getPipe(deps, id)) });
  });

  /**
   * The pipe's captured payloads, newest first (docs/pipes.md, "Captured payloads"). A bot
   * developer's studio session reads and clears only its own bot's pipes', and its reads (up
   * to CAPTURE_MAX_ITEMS bodies each) take the bot's REST budget.
   */
  router.get('/admin/api/pipe/captures', requireStudio(deps, 'pipe/captures'), async (ctx) => {
    const { id } = idInput(ctx.query);
    const pipe = await getPipeInScope(deps, id, studioScope(ctx.state).botId);
    reply(ctx, { items: await listCaptures(deps, pipe.id) });
  });

  router.post('/admin/api/pipe/captures/clear', studio, async (ctx) => {
    const { id } = idInput(ctx.request.body);
    const pipe = await getPipeInScope(deps, id, studioScope(ctx.state).botId);
    await clearCaptures(deps, pipe.id);
    reply(ctx, {});
  });

  adminPipeSignatureRoutes(router, deps);

  router.get('/admin/api/pipe/list', admin, async (ctx) => {
    const { bot_id } = listFilter(ctx.query);
    const { request, sortEcho } = parsePage(ctx.query, ['id', 'title', 'created_at', 'updated_at'], 'id');
    const page = await listPipes(deps, request, bot_id === undefined ? {} : { bot_id });
    reply(ctx, {
      items: page.items.map((p) => pipeView(deps, p)),
      meta: pageMeta(request, page.total),
      sort: sortEcho,
    });
  });
}
