import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { PipeDeps } from '../../domain/pipes/runtime.js';
import type { HeraldState } from '../state.js';
import { isConsolePath, isUnder, SECURITY_HEADERS } from './headers.js';
import { QUEUES_PATH, queueBrowser } from './queues.js';
import { consoleSessionRoutes } from './session.js';
import { consoleFiles } from './static.js';

const API_PATH = '/console/api';

/**
 * The operator console (docs/console.md): its files, its queue browser, and its security headers
 * on every answer under /console, errors included. /console/api/* goes on to the router.
 */
export function consoleApp(deps: PipeDeps): Middleware<HeraldState> {
  const files = consoleFiles(deps.config);
  const queues = queueBrowser(deps, deps.pipeRuntime.queues.all);
  return async (ctx, next) => {
    const path = ctx.path;
    if (!isConsolePath(path)) return next();
    ctx.set(SECURITY_HEADERS);
    // Any case, like the router: /CONSOLE/API/... is the API, not the app's index.html.
    if (isUnder(path, API_PATH)) return next();
    if (isUnder(path, QUEUES_PATH)) return queues(ctx, next);
    return files(ctx, next);
  };
}

export function consoleRoutes(router: Router<HeraldState>, deps: PipeDeps): void {
  consoleSessionRoutes(router, deps);
}
