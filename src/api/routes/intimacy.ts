import type Router from '@koa/router';
import type { Deps } from '../../domain/deps.js';
import { readIntimacy, updateIntimacy } from '../../domain/intimacy.js';
import { requireBot } from '../auth.js';
import { reply } from '../reply.js';
import type { HeraldState } from '../state.js';
import { compileValidator, idSchema } from '../validation.js';

/** Spec limits (section 8). */
export const MAX_SCORE = 2200;
export const MAX_SOCIAL_INFO = 500;

const readQuery = compileValidator<{ user_id: string }>({
  type: 'object',
  properties: { user_id: idSchema },
  required: ['user_id'],
});

const updateBody = compileValidator<{
  user_id: string;
  score?: number;
  social_info?: string;
  img_id?: string | number;
}>({
  type: 'object',
  properties: {
    user_id: idSchema,
    score: { type: 'integer', minimum: 0, maximum: MAX_SCORE },
    social_info: { type: 'string', maxLength: MAX_SOCIAL_INFO },
    // Documented as a string; the platform's own example sends a number, so both are accepted.
    img_id: { type: ['string', 'integer'], minLength: 1, maxLength: 64 },
  },
  required: ['user_id'],
});

export function intimacyRoutes(router: Router<HeraldState>, deps: Deps): void {
  router.get('/api/v3/intimacy/index', requireBot(deps, 'intimacy/index'), async (ctx) => {
    const { user_id } = readQuery(ctx.query);
    reply(ctx, await readIntimacy(deps, ctx.state.bot!, user_id));
  });

  router.post('/api/v3/intimacy/update', requireBot(deps, 'intimacy/update'), async (ctx) => {
    const body = updateBody(ctx.request.body);
    await updateIntimacy(deps, ctx.state.bot!, body.user_id, {
      score: body.score,
      social_info: body.social_info,
      img_id: body.img_id === undefined ? undefined : String(body.img_id),
    });
    reply(ctx, {});
  });
}
