import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import {
  acceptPipeMessage,
  authenticatePipe,
  checkIdempotencyKey,
  PIPE_BUCKET,
  takePipeBudget,
} from '../../domain/pipes/ingest.js';
import type { CachedPipe } from '../../domain/pipes/pipe-cache.js';
import type { PipeDeps } from '../../domain/pipes/runtime.js';
import { pipeMessageStatus, type StatusAsker } from '../../domain/pipes/status.js';
import { HeraldError } from '../../errors/index.js';
import type { BucketResult } from '../../ratelimit/token-bucket.js';
import { credential, requireBot } from '../auth.js';
import { jsonBody } from '../middleware/json-body.js';
import { reply } from '../reply.js';
import type { HeraldState } from '../state.js';
import { compileValidator, idSchema } from '../validation.js';

export const SEND_PIPEMSG_PATH = '/api/v3/message/send-pipemsg';
const STATUS_PATH = '/api/v3/message/pipemsg-status';
const STATUS_BUCKET = 'message/pipemsg-status';

type Ctx = Context & { state: HeraldState };

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

const statusQuery = compileValidator<{ msg_id: string }>({
  type: 'object',
  properties: { msg_id: idSchema, access_token: { type: 'string', maxLength: 256 } },
  required: ['msg_id'],
});

type Query = Record<string, string | string[] | undefined>;

/**
 * The query as Koa's ctx.query answers it (URLSearchParams: a repeated name gives an array, a
 * name without `=` an empty string), parsed without URLSearchParams when nothing in it needs
 * decoding (no `%`, no `+`), which is every pipe URL Herald hands out. Anything else goes to Koa.
 */
function queryOf(ctx: Ctx): Query {
  const qs = ctx.querystring;
  if (qs === '') return {};
  if (qs.includes('%') || qs.includes('+')) return ctx.query;
  const out: Query = {};
  for (const pair of qs.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    const seen = Object.hasOwn(out, name) ? out[name] : undefined;
    const next = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
    if (name === '__proto__') {
      Object.defineProperty(out, name, { value: next, writable: true, enumerable: true, configurable: true });
    } else out[name] = next;
  }
  return out;
}

/**
 * The pipe token: `Authorization: Pipe <token>` (keeps it out of URLs and access logs) or the
 * `access_token` query parameter (the platform's callback URL). Never logged, never echoed.
 */
function pipeToken(ctx: Ctx, query: Query = ctx.query): string {
  const fromHeader = credential(ctx.get('Authorization'), 'Pipe');
  if (fromHeader !== undefined) return fromHeader;
  const fromQuery = query.access_token;
  if (typeof fromQuery === 'string' && fromQuery !== '') return fromQuery;
  if (fromQuery !== undefined) throw new HeraldError('INVALID_TOKEN');
  throw new HeraldError('UNAUTHENTICATED');
}

function setRateHeaders(ctx: Ctx, r: BucketResult, bucket: string): void {
  ctx.set('X-Rate-Limit-Limit', String(r.limit));
  ctx.set('X-Rate-Limit-Remaining', String(r.remaining));
  ctx.set('X-Rate-Limit-Reset', String(Math.ceil(r.resetMs / 1000)));
  ctx.set('X-Rate-Limit-Bucket', bucket);
  if (!r.allowed) throw new HeraldError('RATE_LIMITED', { retry_after: Math.ceil(r.retryAfterMs / 1000) });
}

/** The pipe a send request was admitted for, kept on its context (the door runs before the body is read). */
const ADMITTED = Symbol('admitted pipe');
type Admitted = Ctx & { [ADMITTED]?: CachedPipe };

/** Authenticates the pipe (in process when it is cached: no promise then) and takes its budget. */
async function admit(deps: PipeDeps, ctx: Ctx, query: Query): Promise<CachedPipe> {
  const known = (ctx as Admitted)[ADMITTED];
  if (known) return known;
  const found = authenticatePipe(deps, pipeToken(ctx, query));
  const pipe = found instanceof Promise ? await found : found;
  setRateHeaders(ctx, await takePipeBudget(deps, pipe), PIPE_BUCKET);
  (ctx as Admitted)[ADMITTED] = pipe;
  return pipe;
}

const isSendPath = (path: string): boolean => path === SEND_PIPEMSG_PATH || path === `${SEND_PIPEMSG_PATH}/`;

/**
 * Mounted before the JSON body parser and the router: authenticates the pipe and takes its
 * budget first, so an unknown token or a pipe over its limit costs no body read (401 / 429 at
 * the door). Being the hot path, a send is then served right here (the same JSON body
 * middleware, then the handler) without walking the router's route list.
 */
export function pipeDoor(deps: PipeDeps): Middleware<HeraldState> {
  const parseBody = jsonBody(deps.config.bodyLimitBytes);
  return async (ctx, next) => {
    if (ctx.method !== 'POST' || !isSendPath(ctx.path)) return next();
    const query = queryOf(ctx);
    const pipe = await admit(deps, ctx, query);
    // What the router would have recorded, for the request log.
    (ctx as { _matchedRoute?: string })._matchedRoute = SEND_PIPEMSG_PATH;
    await parseBody(ctx, () => sendPipeMessage(deps, ctx, pipe, query));
  };
}

const rawBodyOf = (ctx: Ctx): string => {
  const raw = (ctx.request as { rawBody?: unknown }).rawBody;
  return typeof raw === 'string' ? raw : '';
};

async function sendPipeMessage(deps: PipeDeps, ctx: Ctx, pipe: CachedPipe, query: Query): Promise<void> {
  const q = sendQuery(query);
  const idemHeader = ctx.get('Idempotency-Key');
  const accepted = await acceptPipeMessage(deps, pipe, {
    type: q.type === undefined ? null : q.type === '9' ? 9 : 10,
    target_id: q.target_id ?? null,
    quote: q.quote ?? null,
    nonce: q.nonce ?? null,
    temp_target_id: q.temp_target_id ?? null,
    body: ctx.request.body,
    rawBody: rawBodyOf(ctx),
    idempotencyKey: idemHeader === '' ? null : checkIdempotencyKey(idemHeader),
  });
  reply(ctx, accepted);
}

export function pipeMessageRoutes(router: Router<HeraldState>, deps: PipeDeps): void {
  // Served by pipeDoor; registered so the router knows the path (405 with Allow for other methods).
  router.post(SEND_PIPEMSG_PATH, async (ctx) => {
    const query = queryOf(ctx);
    await sendPipeMessage(deps, ctx, await admit(deps, ctx, query), query);
  });

  /** A message's status, for its pipe (pipe token) or its bot (`Authorization: Bot`). */
  const bot = requireBot(deps, STATUS_BUCKET);
  router.get(STATUS_PATH, async (ctx) => {
    let asker: StatusAsker;
    if (credential(ctx.get('Authorization'), 'Bot') !== undefined) {
      await bot(ctx, async () => {});
      asker = { bot_id: ctx.state.bot!.id };
    } else {
      const pipe = await authenticatePipe(deps, pipeToken(ctx));
      setRateHeaders(ctx, await takePipeBudget(deps, pipe, 'status'), STATUS_BUCKET);
      asker = { pipe_id: pipe.id };
    }
    const { msg_id } = statusQuery(ctx.query);
    reply(ctx, await pipeMessageStatus(deps, msg_id, asker));
  });
}
