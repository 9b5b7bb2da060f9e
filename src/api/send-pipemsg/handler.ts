import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  acceptPipeMessage,
  authenticatePipe,
  checkIdempotencyKey,
  PIPE_BUCKET,
  takePipeBudget,
} from '../../domain/pipes/ingest.js';
import type { PipeDeps } from '../../domain/pipes/runtime.js';
import { checkPipeSignature } from '../../domain/pipes/signatures/door.js';
import type { Lang } from '../../errors/index.js';
import {
  type Envelope,
  errorEnvelope,
  newErrorId,
  success,
  toHeraldError,
  writeEnvelope,
} from '../envelope.js';
import { pickLang } from '../lang.js';
import { parseQuery, pipeToken } from '../pipe-request.js';
import { rateLimitHeaders, refuseIfLimited } from '../rate-headers.js';
import { readJsonBody } from '../read-json-body.js';
import { logRequest, requestIdFrom } from '../request-log.js';
import { compileValidator, idSchema } from '../validation.js';
import { tapWireBody } from './wire-body.js';

/*
 * POST /api/v3/message/send-pipemsg, served in front of Koa (createHttpHandler in api/app.ts routes it
 * here): the one endpoint third parties call at volume, so it skips the Koa context and
 * middleware chain. It keeps every rule the Koa routes follow: the envelope in the caller's
 * language, the one body reader (read-json-body.ts), the one error-to-envelope mapping
 * (envelope.ts), X-Request-Id, the rate-limit headers on every answer after the budget was
 * taken, and one request log line (request-log.ts).
 *
 * Order: token and budget first, so an unknown token or a pipe over its limit costs no body read
 * (401 / 429 at the door); then the body; then the message is stored and answered.
 */

export const SEND_PIPEMSG_PATH = '/api/v3/message/send-pipemsg';

const SEND_PATH_LOWER = SEND_PIPEMSG_PATH.toLowerCase();

/** Whether a request path is send-pipemsg (as the router matches: any case, optional trailing slash). */
export function isSendPipemsgPath(path: string): boolean {
  if (path.length !== SEND_PATH_LOWER.length && path.length !== SEND_PATH_LOWER.length + 1) return false;
  const p = path.toLowerCase();
  return p === SEND_PATH_LOWER || p === `${SEND_PATH_LOWER}/`;
}

/**
 * A request target split into path and query string (absolute-form targets included), or null
 * for one that is not a URL. Node's parser lets through absolute-form targets WHATWG URL
 * refuses (`http://a:b:c/x`); this runs outside any handler's error handling, so it must not
 * throw.
 */
export function splitTarget(url: string): { path: string; query: string } | null {
  if (!url.startsWith('/')) {
    if (!URL.canParse(url, 'http://localhost')) return null;
    const parsed = new URL(url, 'http://localhost');
    return { path: parsed.pathname, query: parsed.search.slice(1) };
  }
  const q = url.indexOf('?');
  return q < 0 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) };
}

const sendQuery = compileValidator<{
  type?: '9' | '10';
  target_id?: string;
  quote?: string;
  nonce?: string;
  temp_target_id?: string;
}>({
  type: 'object',
  properties: {
    type: { type: 'string', enum: ['9', '10'] },
    target_id: idSchema,
    quote: idSchema,
    nonce: { type: 'string', maxLength: 64 },
    temp_target_id: idSchema,
    access_token: { type: 'string', maxLength: 256 },
  },
});

/** A request header as Koa's ctx.get reads it: '' when absent, repeated ones joined. */
function headerOf(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return value === undefined ? '' : Array.isArray(value) ? value.join(', ') : value;
}

/** Everything an answer carries besides its envelope. */
interface Answer {
  status: number;
  headers: Record<string, string>;
  envelope: Envelope;
  errorId?: string;
  failure?: unknown;
}

async function accept(
  deps: PipeDeps,
  req: IncomingMessage,
  queryString: string,
  answer: Answer,
  lang: Lang,
): Promise<Envelope> {
  const query = parseQuery(queryString);
  const found = authenticatePipe(deps, pipeToken(req.headers.authorization, query));
  const pipe = found instanceof Promise ? await found : found;
  const taken = takePipeBudget(deps, pipe);
  const budget = taken instanceof Promise ? await taken : taken;
  Object.assign(answer.headers, rateLimitHeaders(budget, PIPE_BUCKET));
  refuseIfLimited(budget);
  const reading = readJsonBody(req, deps.config.bodyLimitBytes);
  // A signed pipe verifies the bytes as sent (wire-body.ts); a refusal stores and captures nothing.
  const wire = pipe.signature === null ? null : tapWireBody(req, deps.config.bodyLimitBytes);
  const body = await reading;
  const webhookKey =
    wire === null ? null : checkPipeSignature(deps, pipe, req.headers, wire.bytes(), body.bytes);
  const q = sendQuery(query);
  const idempotencyKey = headerOf(req, 'idempotency-key');
  const accepted = await acceptPipeMessage(deps, pipe, {
    type: q.type === undefined ? null : q.type === '9' ? 9 : 10,
    target_id: q.target_id ?? null,
    quote: q.quote ?? null,
    nonce: q.nonce ?? null,
    temp_target_id: q.temp_target_id ?? null,
    body: body.value,
    rawBody: body.text,
    bodyBytes: body.bytes,
    // A verified webhook-id is the message's idempotency key (it is signed; an Idempotency-Key is not).
    idempotencyKey: webhookKey ?? (idempotencyKey === '' ? null : checkIdempotencyKey(idempotencyKey)),
    capture: { headers: req.headers },
  });
  return success(accepted, lang);
}

/** The request listener of send-pipemsg; `path` and `query` come from splitTarget. */
export function sendPipemsgListener(
  deps: PipeDeps,
): (req: IncomingMessage, res: ServerResponse, path: string, query: string) => void {
  return (req, res, path, query) => {
    const startedAt = performance.now();
    const requestId = requestIdFrom(headerOf(req, 'x-request-id'));
    const lang = pickLang(req.headers['accept-language']);
    const answer: Answer = {
      status: 200,
      headers: { 'X-Request-Id': requestId },
      envelope: { code: 0, message: '', data: {} },
    };
    const respond = (): void => {
      // A body left unread (refused for its size or its credentials) is not drained.
      writeEnvelope(res, answer.status, answer.headers, answer.envelope, !req.complete);
      logRequest(deps.log, {
        requestId,
        method: 'POST',
        route: SEND_PIPEMSG_PATH,
        path,
        status: answer.status,
        startedAt,
        errorId: answer.errorId,
        failure: answer.failure,
      });
    };
    accept(deps, req, query, answer, lang).then(
      (envelope) => {
        answer.envelope = envelope;
        respond();
      },
      (err: unknown) => {
        const herr = toHeraldError(err);
        answer.status = herr.status;
        if (herr.status >= 500) {
          answer.errorId = newErrorId();
          answer.failure = err;
        }
        answer.envelope = errorEnvelope(herr, lang, answer.errorId);
        respond();
      },
    );
  };
}
