import type Router from '@koa/router';
import type { Deps } from '../../domain/deps.js';
import { HeraldError } from '../../errors/index.js';
import { errorEnvelope, newErrorId, success } from '../envelope.js';
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
    // A 503 like any other: a generic message with an error id, the id on the request's log
    // line, and which dependency is down in `data` and in a log line of its own.
    const errorId = newErrorId();
    ctx.state.errorId = errorId;
    deps.log.warn('not ready', { error_id: errorId, ...data });
    const envelope = errorEnvelope(new HeraldError('DEPENDENCY_DOWN'), ctx.state.lang, errorId);
    ctx.status = 503;
    ctx.body = { ...envelope, data: { ...data, error_id: errorId } };
  });
}
