import type Router from '@koa/router';
import { authenticatePipe, takePipeBudget } from '../../domain/pipes/ingest.js';
import type { PipeDeps } from '../../domain/pipes/runtime.js';
import { pipeMessageStatus, type StatusAsker } from '../../domain/pipes/status.js';
import { credential, requireBot } from '../auth.js';
import { pipeToken } from '../pipe-request.js';
import { rateLimitHeaders, refuseIfLimited } from '../rate-headers.js';
import { reply } from '../reply.js';
import type { HeraldState } from '../state.js';
import { compileValidator, idSchema } from '../validation.js';

// POST send-pipemsg is served in front of Koa: see send-pipemsg/handler.ts.

const STATUS_PATH = '/api/v3/message/pipemsg-status';
const STATUS_BUCKET = 'message/pipemsg-status';

const statusQuery = compileValidator<{ msg_id: string }>({
  type: 'object',
  properties: { msg_id: idSchema, access_token: { type: 'string', maxLength: 256 } },
  required: ['msg_id'],
});

export function pipeMessageRoutes(router: Router<HeraldState>, deps: PipeDeps): void {
  /** A message's status, for its pipe (pipe token) or its bot (`Authorization: Bot`). */
  const bot = requireBot(deps, STATUS_BUCKET);
  router.get(STATUS_PATH, async (ctx) => {
    let asker: StatusAsker;
    if (credential(ctx.get('Authorization'), 'Bot') !== undefined) {
      await bot(ctx, async () => {});
      asker = { bot_id: ctx.state.bot!.id };
    } else {
      const pipe = await authenticatePipe(deps, pipeToken(ctx.get('Authorization'), ctx.query));
      const budget = await takePipeBudget(deps, pipe, 'status');
      ctx.set(rateLimitHeaders(budget, STATUS_BUCKET));
      refuseIfLimited(budget);
      asker = { pipe_id: pipe.id };
    }
    const { msg_id } = statusQuery(ctx.query);
    reply(ctx, await pipeMessageStatus(deps, msg_id, asker, ctx.state.lang));
  });
}
