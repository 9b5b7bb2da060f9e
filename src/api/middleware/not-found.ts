import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { HeraldError } from '../../errors/index.js';

/**
 * After the router: a known path with another method is 405 (with Allow), anything else 404.
 * `servedElsewhere` answers the methods served in front of Koa for a path (none by default).
 */
export function notFound(
  router: Router,
  servedElsewhere: (path: string) => readonly string[] = () => [],
): Middleware {
  return async (ctx) => {
    const matched = router.match(ctx.path, ctx.method);
    const methods = new Set(matched.path.flatMap((layer) => layer.methods));
    for (const m of servedElsewhere(ctx.path)) methods.add(m);
    if (methods.size > 0) {
      ctx.set('Allow', [...methods].join(', '));
      throw new HeraldError('METHOD_NOT_ALLOWED', { method: ctx.method });
    }
    throw new HeraldError('ROUTE_NOT_FOUND');
  };
}
