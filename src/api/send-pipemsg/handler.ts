import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  acceptPipeMessage,
  authenticatePipe,
  checkIdempotencyKey,
  countSkipped,
  messageChannel,
  PIPE_BUCKET,
  type PipeMessageRequest,
  takePipeBudget,
} from '../../domain/pipes/ingest.js';
import type { CachedPipe } from '../../domain/pipes/pipe-cache.js';
import { type PipeRouting, routeRequest, skippedAnswer } from '../../domain/pipes/routing/routing.js';
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
import { parseQuery, pipeToken, type Query } from '../pipe-request.js';
import { rateLimitHeaders, refuseIfLimited } from '../rate-headers.js';
import { type BodyOptions, type JsonBody, readJsonBody } from '../read-json-body.js';
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
 * (401 / 429 at the door); then the body; then the message is stored and answered. A pipe that
 * routes by event reads the body before the budget (acceptRouted says why).
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

/** How a body may come: a template pipe also takes a form (read-json-body.ts); made once, not per request. */
const FORM: BodyOptions = { form: true };
const JSON_ONLY: BodyOptions = {};

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
  if (pipe.routing !== null) return acceptRouted(deps, req, query, pipe, pipe.routing, answer, lang);
  const taken = takePipeBudget(deps, pipe);
  const budget = taken instanceof Promise ? await taken : taken;
  Object.assign(answer.headers, rateLimitHeaders(budget, PIPE_BUCKET));
  refuseIfLimited(budget);
  // A template pipe takes GitHub's form-encoded bodies too (the JSON in `payload`).
  const { body, webhookKey } = await readVerified(
    deps,
    req,
    pipe,
    pipe.template_id !== null ? FORM : JSON_ONLY,
  );
  const accepted = await acceptPipeMessage(deps, pipe, messageRequest(req, query, body, webhookKey));
  return success(accepted, lang);
}

/**
 * A pipe that routes by event (domain/pipes/routing): the body is read before the budget, because
 * the event may be in it, and an event the pipe does not post (GitHub's `ping`, an event without
 * a template) is answered 200 `skipped` without taking from the budget: a sender's unrouted
 * events must not use up what its routed ones need. So such a pipe's 429 comes after the body
 * is read. The query is checked before the decision, so that a sender's first request (GitHub's
 * `ping`) already shows a mistake in the URL.
 */
async function acceptRouted(
  deps: PipeDeps,
  req: IncomingMessage,
  query: Query,
  pipe: CachedPipe,
  routing: PipeRouting,
  answer: Answer,
  lang: Lang,
): Promise<Envelope> {
  // Verified before the event is read: an unsigned ping is refused, not skipped.
  const { body, webhookKey } = await readVerified(deps, req, pipe, FORM);
  const request = messageRequest(req, query, body, webhookKey);
  const routed = routeRequest(routing, req.headers, body.value);
  if ('skip' in routed) {
    await messageChannel(deps, pipe, request.target_id);
    countSkipped(deps, routed.skip.reason);
    return success(skippedAnswer(routed.skip), lang);
  }
  const taken = takePipeBudget(deps, pipe);
  const budget = taken instanceof Promise ? await taken : taken;
  Object.assign(answer.headers, rateLimitHeaders(budget, PIPE_BUCKET));
  refuseIfLimited(budget);
  const accepted = await acceptPipeMessage(deps, pipe, { ...request, route: routed.message });
  return success(accepted, lang);
}

/**
 * Reads the body; a signed pipe also verifies the bytes as sent (wire-body.ts: tapped in the
 * reader's turn), and a refusal stores and captures nothing. Answers the verified webhook-id.
 */
async function readVerified(
  deps: PipeDeps,
  req: IncomingMessage,
  pipe: CachedPipe,
  options: BodyOptions,
): Promise<{ body: JsonBody; webhookKey: string | null }> {
  const reading = readJsonBody(req, deps.config.bodyLimitBytes, options);
  const wire = pipe.signature === null ? null : tapWireBody(req, deps.config.bodyLimitBytes);
  const body = await reading;
  const webhookKey =
    wire === null ? null : checkPipeSignature(deps, pipe, req.headers, wire.bytes(), body.bytes);
  return { body, webhookKey };
}

/** The message a request asks for: its query (checked: 400 naming the parameter) and body. */
function messageRequest(
  req: IncomingMessage,
  query: Query,
  body: JsonBody,
  webhookKey: string | null,
): PipeMessageRequest {
  const q = sendQuery(query);
  const idempotencyKey = headerOf(req, 'idempotency-key');
  return {
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
  };
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
