import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeraldError } from '../errors/index.js';
import type { Logger } from '../log/logger.js';
import { errorEnvelope } from './envelope.js';
import { pickLang } from './lang.js';
import { logRequest, requestIdFrom } from './request-log.js';

/**
 * Answers a request whose target is not a URL (400, REQUEST_TARGET_INVALID), with its log line.
 * Node's HTTP parser passes absolute-form targets that URL parsers refuse (`http://a:b:c/x`,
 * `http://[::1/x`); neither Koa nor the send-pipemsg door can route them, and Koa's own reading
 * of such a target throws outside its error handling (a bare 500).
 */
export function answerInvalidTarget(log: Logger, req: IncomingMessage, res: ServerResponse): void {
  const startedAt = performance.now();
  const given = req.headers['x-request-id'];
  const requestId = requestIdFrom(Array.isArray(given) ? given.join(', ') : given);
  const envelope = errorEnvelope(
    new HeraldError('REQUEST_TARGET_INVALID'),
    pickLang(req.headers['accept-language']),
    undefined,
  );
  const text = JSON.stringify(envelope);
  res.writeHead(400, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    'X-Request-Id': requestId,
    // The body, if any, is not read.
    Connection: 'close',
  });
  res.end(text);
  // The target itself is not logged: it is not a path, and it could hold a token.
  logRequest(log, { requestId, method: req.method ?? '', route: null, path: '', status: 400, startedAt });
}
