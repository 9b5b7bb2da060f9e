import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { orRedisDown } from '../../ratelimit/redis-errors.js';
import { pipeCaptureKey, pipeCapturesKey } from '../../redis/keys.js';
import { clusterTag } from '../../redis/partitions.js';
import type { Deps } from '../deps.js';

/*
 * Captured payloads: a pipe keeps its latest accepted payloads (body as received, allow-listed
 * headers) so that a template author can write against what the sender really sends
 * (docs/pipes.md, "Captured payloads").
 *
 * In Redis, per pipe: a list of capture ids, newest first, and one string per capture (the JSON
 * metadata, a newline, the body's bytes, empty when over CAPTURE_MAX_BYTES), each with its own
 * expiry, so no capture outlives CAPTURE_TTL_S. Keeping them is one Lua call per pipe and
 * event-loop turn (CaptureBatch): it writes the captures, pushes the ids and drops what falls past
 * CAPTURE_MAX_ITEMS, so two web processes capturing at once cannot leave a pipe over its count.
 *
 * A capture's id is the message's msg_id: the capture names the delivery it became.
 */

/**
 * The request headers a capture keeps, lower case: those that tell what a sender sent and
 * which event it was. Everything else is dropped, so no credential is ever kept: not
 * Authorization (a pipe token may travel there), Cookie, nor any signature or shared secret
 * (X-Hub-Signature*, X-Gitlab-Token, Webhook-Signature, Sentry-Hook-Signature,
 * X-Gitea-Signature). The URL, and with it an access_token in the query, is never kept.
 */
export const CAPTURE_HEADERS: readonly string[] = [
  'content-type',
  'content-encoding',
  'user-agent',
  'x-request-id',
  'idempotency-key',
  // GitHub
  'x-github-event',
  'x-github-delivery',
  'x-github-hook-id',
  // GitLab
  'x-gitlab-event',
  'x-gitlab-event-uuid',
  'x-gitlab-instance',
  'x-gitlab-webhook-uuid',
  // Gitea, Forgejo
  'x-gitea-event',
  'x-gitea-delivery',
  // Bitbucket
  'x-event-key',
  // Sentry
  'sentry-hook-resource',
  'sentry-hook-timestamp',
  // Standard Webhooks (Svix and others)
  'webhook-id',
  'webhook-timestamp',
];

/** One captured payload, as the admin API answers it. */
export interface Capture {
  /** The message's msg_id. */
  readonly id: string;
  /** When the message was accepted (ISO 8601). */
  readonly received_at: string;
  /** The request's Content-Type; null when it sent none (a POST without a body). */
  readonly content_type: string | null;
  /** Bytes of the body (decompressed, without a byte-order mark). */
  readonly size: number;
  /** Allow-listed request headers (CAPTURE_HEADERS) the request carried. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body's text as received; null when over CAPTURE_MAX_BYTES. */
  readonly body: string | null;
  readonly too_large: boolean;
}

/** Request headers as Node's http module gives them (names in lower case). */
export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** What the door hands over for a message's capture, beyond the body's bytes. */
export interface CaptureSource {
  readonly headers: RequestHeaders;
}

/** The allow-listed headers of a request (CAPTURE_HEADERS); repeated ones joined with ", ". */
export function captureHeaders(headers: RequestHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of CAPTURE_HEADERS) {
    const value = headers[name];
    if (value !== undefined) kept[name] = typeof value === 'string' ? value : value.join(', ');
  }
  return kept;
}

/** A capture's stored metadata (the JSON before the first newline of its string). */
interface StoredMeta {
  /** Acceptance time, ms since the epoch. */
  readonly at: number;
  readonly content_type: string | null;
  readonly size: number;
  readonly headers: Record<string, string>;
  readonly too_large: boolean;
}

/** A capture as stored: metadata JSON, and the body's bytes unless over `maxBytes` (then null). */
export function encodeCapture(
  acceptedAt: number,
  source: CaptureSource,
  body: Buffer,
  maxBytes: number,
): { meta: string; body: Buffer | null } {
  const headers = captureHeaders(source.headers);
  const tooLarge = body.length > maxBytes;
  const meta: StoredMeta = {
    at: acceptedAt,
    content_type: headers['content-type'] ?? null,
    size: body.length,
    headers,
    too_large: tooLarge,
  };
  return { meta: JSON.stringify(meta), body: tooLarge ? null : body };
}

/** A stored capture, as the admin API answers it. */
export function decodeCapture(id: string, meta: string, body: string | null): Capture {
  const m = JSON.parse(meta) as StoredMeta;
  return {
    id,
    received_at: new Date(m.at).toISOString(),
    content_type: m.content_type,
    size: m.size,
    headers: m.headers,
    body: m.too_large ? null : (body ?? ''),
    too_large: m.too_large,
  };
}

const KEEP_LUA = readFileSync(new URL('./capture-keep.lua', import.meta.url), 'utf8');
const LIST_LUA = readFileSync(new URL('./capture-list.lua', import.meta.url), 'utf8');
const CLEAR_LUA = readFileSync(new URL('./capture-clear.lua', import.meta.url), 'utf8');
const KEEP = 'heraldCaptureKeep' as const;
const LIST = 'heraldCaptureList' as const;
const CLEAR = 'heraldCaptureClear' as const;

interface CaptureCommands {
  [KEEP]: (list: string, ...args: Array<string | number | Buffer>) => Promise<number>;
  [LIST]: (list: string, itemPrefix: string, max: number) => Promise<Array<string | null>>;
  [CLEAR]: (list: string, itemPrefix: string) => Promise<number>;
}

/** `redis` with the capture scripts defined on it (once per client; ioredis loads them by SHA). */
function scripts(redis: Redis): CaptureCommands {
  const client = redis as Redis & Partial<CaptureCommands>;
  if (!client[KEEP]) {
    redis.defineCommand(KEEP, { numberOfKeys: 1, lua: KEEP_LUA });
    redis.defineCommand(LIST, { numberOfKeys: 1, lua: LIST_LUA });
    redis.defineCommand(CLEAR, { numberOfKeys: 1, lua: CLEAR_LUA });
  }
  return client as Redis & CaptureCommands;
}

/** An accepted message's payload, waiting for the end of its event-loop turn to be written. */
export interface PendingCapture {
  readonly msgId: string;
  readonly acceptedAt: number;
  readonly source: CaptureSource;
  readonly body: Buffer;
}

/**
 * The captures of one event-loop turn, per pipe, written when the turn's I/O is done: one
 * call per pipe however many messages it took in the turn, and only the newest `maxItems` of
 * them (older ones would be dropped from the list at once). Encoding waits for the flush too,
 * so a capture that falls out costs the request nothing but a reference.
 */
export class CaptureBatch {
  private pending = new Map<string, PendingCapture[]>();
  private scheduled = false;

  constructor(
    private readonly maxItems: number,
    private readonly write: (pipeId: string, captures: readonly PendingCapture[]) => void,
  ) {}

  add(pipeId: string, capture: PendingCapture): void {
    let list = this.pending.get(pipeId);
    if (list === undefined) {
      list = [];
      this.pending.set(pipeId, list);
    }
    list.push(capture);
    if (list.length > this.maxItems) list.shift();
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    const pending = this.pending;
    this.pending = new Map();
    this.scheduled = false;
    for (const [pipeId, captures] of pending) this.write(pipeId, captures);
  }
}

/** Writes one pipe's captures (oldest first) in one Lua call; a failure is logged, nothing more. */
function writeCaptures(
  deps: Pick<Deps, 'config' | 'log'>,
  redis: Redis,
  pipeId: string,
  captures: readonly PendingCapture[],
): void {
  const { config } = deps;
  const args: Array<string | number | Buffer> = [
    config.captureTtlS * 1000,
    config.captureMaxItems,
    pipeCaptureKey(config.redisPrefix, pipeId, '', clusterTag(config, pipeId)),
  ];
  for (const c of captures) {
    const stored = encodeCapture(c.acceptedAt, c.source, c.body, config.captureMaxBytes);
    args.push(c.msgId, stored.meta, stored.body ?? '');
  }
  scripts(redis)
    [KEEP](pipeCapturesKey(config.redisPrefix, pipeId, clusterTag(config, pipeId)), ...args)
    .catch((err: unknown) =>
      deps.log.warn('payloads not captured', {
        pipe_id: pipeId,
        msg_ids: captures.map((c) => c.msgId),
        error: err instanceof Error ? err.message : String(err),
      }),
    );
}

/** Each hot-path client's batch (one per web process, or per test app). */
const batches = new WeakMap<Redis, CaptureBatch>();

/**
 * Keeps a message's payload among its pipe's captures, on `redis` (the hot path's client),
 * without waiting: the caller has stored the message and answers at once; the write leaves at
 * the end of the event-loop turn (CaptureBatch). A capture that cannot be written is logged and
 * lost; the message stays accepted.
 */
export function keepCapture(
  deps: Pick<Deps, 'config' | 'log'>,
  redis: Redis,
  pipeId: string,
  capture: PendingCapture,
): void {
  if (deps.config.captureMaxItems === 0) return;
  let batch = batches.get(redis);
  if (batch === undefined) {
    batch = new CaptureBatch(deps.config.captureMaxItems, (id, captures) =>
      writeCaptures(deps, redis, id, captures),
    );
    batches.set(redis, batch);
  }
  batch.add(pipeId, capture);
}

/** A pipe's captures, newest first (at most CAPTURE_MAX_ITEMS); 503 when Redis is down. */
export async function listCaptures(deps: Pick<Deps, 'config' | 'redis'>, pipeId: string): Promise<Capture[]> {
  const { config } = deps;
  if (config.captureMaxItems === 0) return [];
  const flat = await orRedisDown(() =>
    scripts(deps.redis)[LIST](
      pipeCapturesKey(config.redisPrefix, pipeId, clusterTag(config, pipeId)),
      pipeCaptureKey(config.redisPrefix, pipeId, '', clusterTag(config, pipeId)),
      config.captureMaxItems,
    ),
  );
  const items: Capture[] = [];
  for (let i = 0; i + 2 < flat.length; i += 3) {
    items.push(decodeCapture(flat[i]!, flat[i + 1]!, flat[i + 2] ?? null));
  }
  return items;
}

/** Deletes every capture of a pipe; 503 when Redis is down. */
export async function clearCaptures(deps: Pick<Deps, 'config' | 'redis'>, pipeId: string): Promise<void> {
  const prefix = deps.config.redisPrefix;
  // On a cluster the list and the hashes its script builds names for share the pipe's slot.
  const tag = clusterTag(deps.config, pipeId);
  await orRedisDown(() =>
    scripts(deps.redis)[CLEAR](pipeCapturesKey(prefix, pipeId, tag), pipeCaptureKey(prefix, pipeId, '', tag)),
  );
}
