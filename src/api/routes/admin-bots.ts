import type Router from '@koa/router';
import { createBot, getBot, listBots, rotateBotToken, updateBot } from '../../domain/bots.js';
import type { Deps } from '../../domain/deps.js';
import type { BotRecord, ImageRef } from '../../store/index.js';
import { requireAdmin } from '../auth.js';
import { pageMeta, parsePage } from '../paging.js';
import { reply } from '../reply.js';
import type { HeraldState } from '../state.js';
import { compileValidator, idSchema } from '../validation.js';
import { MAX_SCORE } from './intimacy.js';

/**
 * A bot's slowest refill: one message in under three hours. Slower is a typo, not a limit (1e-7 was
 * one message in 116 days).
 */
const MIN_BOT_REFILL = 0.0001;

/** An operator's image list: ids and http(s) urls, bounded so a bot record stays small. */
const MAX_IMAGES = 100;

/** What an image's url and relay_url must be, as their rule names it. */
const HTTP_URL = { 'zh-CN': 'http(s) 地址', 'en-US': 'an http(s) URL' } as const;

const botFields = {
  // no control characters: the name shows in the console and in the platform's lists
  name: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[^\\u0000-\\u001f\\u007f]*$' },
  enabled: { type: 'boolean' },
  default_score: { type: 'integer', minimum: 0, maximum: MAX_SCORE },
  default_img_id: { type: ['string', 'integer'], maxLength: 64 },
  img_list: {
    type: 'array',
    maxItems: MAX_IMAGES,
    items: {
      type: 'object',
      properties: {
        id: { type: 'string', minLength: 1, maxLength: 64 },
        url: {
          type: 'string',
          minLength: 1,
          maxLength: 1024,
          pattern: '^https?://',
          'x-pattern': HTTP_URL,
        },
      },
      required: ['id', 'url'],
    },
  },
  // Pipe delivery (issue 6). null puts a rate back to its default.
  rate_capacity: { type: ['integer', 'null'], minimum: 1, maximum: 1_000_000 },
  rate_per_second: { type: ['number', 'null'], minimum: MIN_BOT_REFILL, maximum: 1_000_000 },
  sink: { enum: ['store', 'relay'] },
  relay_url: {
    type: 'string',
    maxLength: 1024,
    pattern: '^(https?://.+)?$',
    'x-pattern': HTTP_URL,
  },
  upstream_token: { type: 'string', maxLength: 512 },
} as const;

interface BotBody {
  name?: string;
  enabled?: boolean;
  default_score?: number;
  default_img_id?: string | number;
  img_list?: ImageRef[];
  rate_capacity?: number | null;
  rate_per_second?: number | null;
  sink?: 'store' | 'relay';
  relay_url?: string;
  upstream_token?: string;
}

const createBody = compileValidator<BotBody & { name: string }>({
  type: 'object',
  properties: botFields,
  required: ['name'],
});
const updateBodyV = compileValidator<BotBody & { id: string }>({
  type: 'object',
  properties: { id: idSchema, ...botFields },
  required: ['id'],
});
const idBody = compileValidator<{ id: string }>({
  type: 'object',
  properties: { id: idSchema },
  required: ['id'],
});

/** Copies only known fields, so unknown body fields never travel further. */
const botInput = (b: BotBody) => ({
  name: b.name,
  enabled: b.enabled,
  default_score: b.default_score,
  default_img_id: b.default_img_id === undefined ? undefined : String(b.default_img_id),
  img_list: b.img_list?.map((i) => ({ id: i.id, url: i.url })),
  rate_capacity: b.rate_capacity,
  rate_per_second: b.rate_per_second,
  sink: b.sink,
  relay_url: b.relay_url?.replace(/\/+$/, ''),
  upstream_token: b.upstream_token,
});

/** The bot as operators see it (never the token hash). */
const view = (bot: BotRecord) => ({ ...bot });

export function adminBotRoutes(router: Router<HeraldState>, deps: Deps): void {
  const admin = requireAdmin(deps);

  router.post('/admin/api/bot/create', admin, async (ctx) => {
    const body = createBody(ctx.request.body);
    const { bot, token } = await createBot(deps, { ...botInput(body), name: body.name });
    reply(ctx, { bot: view(bot), token });
  });

  router.post('/admin/api/bot/update', admin, async (ctx) => {
    const body = updateBodyV(ctx.request.body);
    reply(ctx, { bot: view(await updateBot(deps, body.id, botInput(body))) });
  });

  router.post('/admin/api/bot/rotate-token', admin, async (ctx) => {
    const { id } = idBody(ctx.request.body);
    reply(ctx, { token: await rotateBotToken(deps, id) });
  });

  router.get('/admin/api/bot/view', admin, async (ctx) => {
    const { id } = idBody(ctx.query);
    reply(ctx, { bot: view(await getBot(deps, id)) });
  });

  router.get('/admin/api/bot/list', admin, async (ctx) => {
    const { request, sortEcho } = parsePage(ctx.query, ['id', 'name', 'created_at', 'updated_at'], 'id');
    const page = await listBots(deps, request);
    reply(ctx, { items: page.items.map(view), meta: pageMeta(request, page.total), sort: sortEcho });
  });
}
