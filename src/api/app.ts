import Router from '@koa/router';
import Koa from 'koa';
import type { PipeDeps } from '../domain/pipes/runtime.js';
import { jsonBody } from './middleware/json-body.js';
import { notFound } from './middleware/not-found.js';
import { requestContext } from './middleware/request-context.js';
import { adminBotRoutes } from './routes/admin-bots.js';
import { adminDeliveryRoutes } from './routes/admin-deliveries.js';
import { adminDirectoryRoutes } from './routes/admin-directory.js';
import { adminPipeRoutes } from './routes/admin-pipes.js';
import { healthRoutes } from './routes/health.js';
import { intimacyRoutes } from './routes/intimacy.js';
import { messageRoutes } from './routes/messages.js';
import { metricsRoutes } from './routes/metrics.js';
import { pipeDoor, pipeMessageRoutes } from './routes/pipe-messages.js';
import { templateRoutes } from './routes/templates.js';
import type { HeraldState } from './state.js';

/** The HTTP API as a Koa app; `app.callback()` serves it (bin/web listens, tests drive it). */
export function createApp(deps: PipeDeps): Koa<HeraldState> {
  const app = new Koa<HeraldState>();
  const router = new Router<HeraldState>();
  healthRoutes(router, deps);
  intimacyRoutes(router, deps);
  adminBotRoutes(router, deps);
  adminPipeRoutes(router, deps);
  pipeMessageRoutes(router, deps);
  adminDirectoryRoutes(router, deps);
  templateRoutes(router, deps);
  messageRoutes(router, deps);
  adminDeliveryRoutes(router, deps);
  metricsRoutes(router, deps);

  app.use(requestContext(deps.log));
  // Pipe token and budget before the body is read: 401 and 429 cost no body parse.
  app.use(pipeDoor(deps));
  app.use(jsonBody(deps.config.bodyLimitBytes));
  app.use(router.routes());
  app.use(notFound(router));
  return app;
}
