import type Router from '@koa/router';
import { getBot } from '../../domain/bots.js';
import type { Deps } from '../../domain/deps.js';
import { readIntimacy, updateIntimacy } from '../../domain/intimacy.js';
import { requireAdmin } from '../auth.js';
import { reply } from '../reply.js';
import type { HeraldState } from '../state.js';
import { compileValidator, idSchema } from '../validation.js';
import { MAX_SCORE, MAX_SOCIAL_INFO } from './intimacy.js';

/*
 * Intimacy records in the back office: the bot API's read and update (spec 4), for any bot,
 * with its rules (score 0-2200, social_info up to 500 characters, img_id one of the bot's images)
 * and its domain functions. A user without a record reads as the bot's defaults; an update
 * answers the record as it then reads. A disabled bot's
 * records stay readable and editable here: operators manage bots the API refuses.
 */

const viewQuery = compileValidator<{ bot_id: string; user_id: string }>({
  type: 'object',
  properties: { bot_id: idSchema, user_id: idSchema },
  required: ['bot_id', 'user_id'],
});

const updateBody = compileValidator<{
  bot_id: string;
  user_id: string;
  score?: number;
  social_info?: string;
  img_id?: string | number;
}>({
  type: 'object',
  properties: {
    bot_id: idSchema,
    user_id: idSchema,
    score: { type: 'integer', minimum: 0, maximum: MAX_SCORE },
    social_info: { type: 'string', maxLength: MAX_SOCIAL_INFO },
    // As in the bot API: documented as a string, sent as a number in the platform's example.
    img_id: { type: ['string', 'integer'], minLength: 1, maxLength: 64 },
  },
  required: ['bot_id', 'user_id'],
});

export function adminIntimacyRoutes(router: Router<HeraldState>, deps: Deps): void {
  const admin = requireAdmin(deps);

  router.get('/admin/api/intimacy/view', admin, async (ctx) => {
    const q = viewQuery(ctx.query);
    const bot = await getBot(deps, q.bot_id);
    reply(ctx, { bot_id: bot.id, user_id: q.user_id, ...(await readIntimacy(deps, bot, q.user_id)) });
  });

  router.post('/admin/api/intimacy/update', admin, async (ctx) => {
    const body = updateBody(ctx.request.body);
    const bot = await getBot(deps, body.bot_id);
    await updateIntimacy(deps, bot, body.user_id, {
      score: body.score,
      social_info: body.social_info,
      img_id: body.img_id === undefined ? undefined : String(body.img_id),
    });
    // The record as it now reads (the bot API answers {}): the console shows it without a second call.
    reply(ctx, { bot_id: bot.id, user_id: body.user_id, ...(await readIntimacy(deps, bot, body.user_id)) });
  });
}
