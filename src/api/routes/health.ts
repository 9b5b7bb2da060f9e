import type Router from '@koa/router';
import type { Deps } from '../../domain/deps.js';
import { HeraldError } from '../../errors/index.js';
import { success } from '../envelope.js';
import type { HeraldState } from '../state.js';

/** How long readiness waits for each dependency before calling it down, in ms. */
const READY_TIMEOUT_MS = 1_000;

const within = <T>(p: Promise<T>, ms: number): Promise<T> =>
  Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref()),
  ]);

const check = (p: () => Promise<unknown>): Promise<'ok' | 'down'> =>
  within(p(), READY_TIMEOUT_MS).then(
    () => 'ok' as const,
    () => 'down' as const,
  );

export function healthRoutes(router: Router<HeraldState>, deps: Deps): void {
  /** Liveness: the process answers. Touches no dependency, so a slow database never restarts us. */
  router.get('/healthz', (ctx) => {
    ctx.body = success({ status: 'ok' }, ctx.state.lang);
  });

  /** Readiness: the database and Redis both answer; 503 (with which one is down) otherwise. */
  router.get('/readyz', async (ctx) => {
    const [database, redis] = await Promise.all([
      check(() => deps.store.ping()),
      check(() => deps.redis.ping()),
    ]);
    const data = { database, redis };
    if (database === 'ok' && redis === 'ok') {
      ctx.body = success(data, ctx.state.lang);
      return;
    }
    const err = new HeraldError('DEPENDENCY_DOWN', { error_id: '-' });
    ctx.status = 503;
    ctx.body = { code: err.code, message: err.localizedMessage(ctx.state.lang), data };
  });
}
