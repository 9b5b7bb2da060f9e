import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HeraldError } from '../errors/index.js';
import type { Logger } from '../log/logger.js';
import { isConsolePath, SECURITY_HEADERS } from './console/headers.js';
import { errorEnvelope, writeEnvelope } from './envelope.js';
import { pickLang } from './lang.js';
import { logRequest, requestIdFrom } from './request-log.js';

/**
 * Answers a request refused at the door, before any route sees it, with its envelope and log
 * line; the body, if any, is not read and the connection closes. For a target that is not a URL
 * (Node's parser passes absolute-form targets URL parsers refuse, `http://a:b:c/x`, and Koa's own
 * reading of one throws outside its error handling), and for a declared body over the limit.
 * `path` is '' when the target is no path: it is not logged then, as it could hold a token.
 */
export function answerEarly(
  log: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  error: HeraldError,
  path: string,
): void {
  const startedAt = performance.now();
  const given = req.headers['x-request-id'];
  const requestId = requestIdFrom(Array.isArray(given) ? given.join(', ') : given);
  const envelope = errorEnvelope(error, pickLang(req.headers['accept-language']), undefined);
  const headers = { 'X-Request-Id': requestId, ...(isConsolePath(path) ? SECURITY_HEADERS : {}) };
  writeEnvelope(res, error.status, headers, envelope, true);
  logRequest(log, {
    requestId,
    method: req.method ?? '',
    route: null,
    path,
    status: error.status,
    startedAt,
  });
}
