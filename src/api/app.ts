import type { RequestListener } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import type { PipeDeps } from '../domain/pipes/runtime.js';
import { HeraldError } from '../errors/index.js';
import { answerClientError, type ClientErrorListener } from './client-error.js';
import { consoleApp, consoleRoutes } from './console/index.js';
import { answerEarly } from './early-answer.js';
import { bodyTooLarge } from './json-rules.js';
import { notFound } from './middleware/not-found.js';
import { requestContext } from './middleware/request-context.js';
import { adminBotRoutes } from './routes/admin-bots.js';
import { adminDeliveryRoutes } from './routes/admin-deliveries.js';
import { adminDirectoryRoutes } from './routes/admin-directory.js';
import { adminGalleryRoutes } from './routes/admin-gallery.js';
import { adminIntimacyRoutes } from './routes/admin-intimacy.js';
import { adminOverviewRoutes } from './routes/admin-overview.js';
import { adminPipeRoutes } from './routes/admin-pipes.js';
import { adminTemplateRoutes } from './routes/admin-templates.js';
import { healthRoutes } from './routes/health.js';
import { intimacyRoutes } from './routes/intimacy.js';
import { messageRoutes } from './routes/messages.js';
import { metricsRoutes } from './routes/metrics.js';
import { pipeMessageRoutes } from './routes/pipe-messages.js';
import { templateRoutes } from './routes/templates.js';
import { isSendPipemsgPath, sendPipemsgListener, splitTarget } from './send-pipemsg/handler.js';
import type { HeraldState } from './state.js';

/**
 * The HTTP API as one request listener (bin/web listens on it, tests drive it over loopback):
 * POST send-pipemsg, the endpoint third parties call at volume, is served right here in front
 * of Koa; everything else goes through the Koa app below. Its onClientError answers the requests
 * Node's parser refuses, in the envelope too (listen() hooks it to the server's 'clientError').
 */
export function createHttpHandler(
  deps: PipeDeps,
): RequestListener & { readonly onClientError: ClientErrorListener } {
  const koa = createKoaApp(deps).callback();
  const sendPipemsg = sendPipemsgListener(deps);
  const limit = deps.config.bodyLimitBytes;
  const onRequest: RequestListener = (req, res) => {
    const url = req.url ?? '/';
    const target = splitTarget(url);
    if (target === null)
      return answerEarly(deps.log, req, res, new HeraldError('REQUEST_TARGET_INVALID'), '');
    // A declared body over the limit is refused on every route, whatever its method or
    // encoding (no compressor makes JSON bigger), before credentials or routing cost anything.
    if (Number(req.headers['content-length']) > limit) {
      return answerEarly(deps.log, req, res, bodyTooLarge(limit), target.path);
    }
    if (req.method === 'POST' && isSendPipemsgPath(target.path)) {
      return sendPipemsg(req, res, target.path, target.query);
    }
    // Koa reads the target with the legacy url.parse, which throws on some absolute-form targets
    // WHATWG URL takes: it gets the origin form (the path and query) instead.
    if (!url.startsWith('/')) req.url = target.query === '' ? target.path : `${target.path}?${target.query}`;
    void koa(req, res);
  };
  return Object.assign(onRequest, { onClientError: answerClientError(deps.log) });
}

function createKoaApp(deps: PipeDeps): Koa<HeraldState> {
  const app = new Koa<HeraldState>();
  // Behind a reverse proxy (TRUST_PROXY), ctx.ip is the client the proxies name: of
  // X-Forwarded-For, only the last TRUST_PROXY_HOPS entries (those our proxies wrote) are read,
  // so a client cannot choose its own address (the console's sign-in throttle keys on it).
  app.proxy = deps.config.trustProxy;
  app.proxyIpHeader = 'X-Forwarded-For';
  app.maxIpsCount = deps.config.trustProxyHops;
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
  adminTemplateRoutes(router, deps);
  adminGalleryRoutes(router, deps);
  adminIntimacyRoutes(router, deps);
  adminOverviewRoutes(router, deps);
  metricsRoutes(router, deps);
  if (deps.config.console) consoleRoutes(router, deps);

  // Errors reported to the app rather than thrown (bull-board's own handler reports what it
  // answered 500 for; Koa, a response stream that failed): Koa would print them to stderr.
  app.on('error', (err: unknown) => deps.log.warn('error reported to the app', { error: err }));
  app.use(requestContext(deps.log));
  if (deps.config.console) app.use(consoleApp(deps));
  app.use(router.routes());
  // Other methods on send-pipemsg reach Koa: 405 with Allow, as for the router's own routes.
  app.use(notFound(router, (path) => (isSendPipemsgPath(path) ? ['POST'] : [])));
  return app;
}
