import { HeraldError } from '../../errors/index.js';
import { asRedisDependencyError } from '../../ratelimit/redis-errors.js';
import type { BucketLimit } from '../../ratelimit/token-bucket.js';
import { createRedis } from '../../redis/clients.js';
import { pipesChangedChannel } from '../../redis/keys.js';
import type { PipeGrouping, PipeOverflow, PipeRecord, Store } from '../../store/index.js';
import type { Deps } from '../deps.js';
import { LiveCache } from './live-cache.js';
import { pipeTokenMatches, pipeTokenOwner } from './pipe-tokens.js';
import { type PipeRouting, routingOf } from './routing/routing.js';
import type { SecretBox } from './signatures/secret-box.js';
import { openSignatureCheck, type SignatureCheck } from './signatures/verify.js';

/** Most pipes whose resolution a web process keeps (each entry is a few hundred bytes). */
export const PIPE_CACHE_MAX_ENTRIES = 50_000;
/** Age after which a cached pipe is re-read from the database (when it answers), in ms. */
export const PIPE_CACHE_FRESH_MS = 60_000;

/** Everything the hot path needs about a pipe, so that accepting a message reads no database. */
export interface CachedPipe {
  readonly id: string;
  readonly bot_id: string;
  readonly channel_id: string;
  readonly guild_id: string;
  readonly template_id: string | null;
  readonly enabled: boolean;
  /** Whether the pipe's bot is enabled: a disabled bot's pipes are refused at the door. */
  readonly bot_enabled: boolean;
  /** Effective limit: the pipe's own or the configured default. */
  readonly rate_limit: BucketLimit;
  readonly token_hash: string;
  /** Whether accepted payloads are captured (captures.ts). */
  readonly capture: boolean;
  /** What a message over the platform's limits becomes (render/fit.ts): the worker reads it. */
  readonly overflow: PipeOverflow;
  /** Event routing (routing/routing.ts); null: every message renders template_id. */
  readonly routing: PipeRouting | null;
  /** The signature senders must send, its secrets opened (signatures/verify.ts); null: none. */
  readonly signature: SignatureCheck | null;
  /** Alert-storm control, decided in the worker (grouping.ts); null: none. */
  readonly grouping: PipeGrouping | null;
}

/**
 * Redis pub/sub channel on which every change to a pipe is announced. Message: the pipe id, a
 * space and the publishing process's origin (LocalChanges.origin); older publishers sent the id
 * alone.
 */

/** A pipes-changed message: the pipe, and who published it (undefined from older publishers). */
export function parsePipeChange(text: string): { id: string; origin: string | undefined } {
  const space = text.indexOf(' ');
  return space < 0
    ? { id: text, origin: undefined }
    : { id: text.slice(0, space), origin: text.slice(space + 1) };
}

export type PipeCache = LiveCache<CachedPipe>;

/**
 * `secrets` opens signed pipes' secrets; without it (workers, which verify nothing) a signed
 * pipe's entry has no signature check.
 */
export function createPipeCache(
  store: Pick<Store, 'pipes' | 'bots'>,
  defaultLimit: BucketLimit,
  now?: () => number,
  secrets?: SecretBox,
): PipeCache {
  return new LiveCache<CachedPipe>({
    maxEntries: PIPE_CACHE_MAX_ENTRIES,
    freshMs: PIPE_CACHE_FRESH_MS,
    ...(now ? { now } : {}),
    async load(id) {
      const found = await store.pipes.getWithTokenHash(id);
      if (!found) return null;
      const bot = await store.bots.get(found.pipe.bot_id);
      const signature = secrets ? openSignatureCheck(found.signature, id, secrets) : null;
      return toCached(found.pipe, found.token_hash, defaultLimit, bot?.enabled ?? false, signature);
    },
  });
}

export function toCached(
  pipe: PipeRecord,
  tokenHash: string,
  defaultLimit: BucketLimit,
  botEnabled: boolean,
  signature: SignatureCheck | null = null,
): CachedPipe {
  return {
    id: pipe.id,
    bot_id: pipe.bot_id,
    channel_id: pipe.channel_id,
    guild_id: pipe.guild_id,
    template_id: pipe.template_id,
    enabled: pipe.enabled,
    bot_enabled: botEnabled,
    rate_limit: pipe.rate_limit
      ? { capacity: pipe.rate_limit.capacity, perSecond: pipe.rate_limit.per_second }
      : defaultLimit,
    token_hash: tokenHash,
    capture: pipe.capture,
    overflow: pipe.overflow,
    routing: routingOf(pipe),
    signature,
    grouping: pipe.grouping,
  };
}

/**
 * The enabled pipe a token opens. A malformed, unknown, stale (rotated), deleted or disabled
 * pipe's token is 401 alike: the caller learns nothing about which. A valid token of a pipe
 * whose bot an operator disabled is 403, as the bot's own token is. The token itself goes
 * nowhere but into the hash.
 *
 * Answers without a promise when the pipe is cached (the hot path), with one when it must be
 * loaded.
 */
export function resolvePipeToken(cache: PipeCache, token: string): CachedPipe | Promise<CachedPipe> {
  const id = pipeTokenOwner(token);
  if (id === null) throw new HeraldError('INVALID_TOKEN');
  const cached = cache.peek(id);
  if (cached !== undefined) return admitToken(cached, token);
  return cache.get(id).then((pipe) => admitToken(pipe, token));
}

function admitToken(pipe: CachedPipe | null, token: string): CachedPipe {
  if (!pipe || !pipeTokenMatches(token, pipe.token_hash) || !pipe.enabled)
    throw new HeraldError('INVALID_TOKEN');
  if (!pipe.bot_enabled) throw new HeraldError('FORBIDDEN');
  return pipe;
}

/** Tells this process's caches at once, and every other web process through Redis, that a pipe changed. */
export async function announcePipeChange(deps: Deps, pipeId: string): Promise<void> {
  deps.changes.emit({ kind: 'pipe', id: pipeId });
  try {
    await deps.redis.publish(
      pipesChangedChannel(deps.config.redisPrefix),
      `${pipeId} ${deps.changes.origin}`,
    );
  } catch (err) {
    throw asRedisDependencyError(err);
  }
}

/**
 * Keeps `cache` current from the pipes-changed channel on a dedicated connection. The cache is
 * live only while the subscription is: when the connection drops it is cleared and bypassed
 * (every request reads the database) until the subscription is confirmed again, so a missed
 * notification can never leave a rotated or deleted token working.
 */
export async function subscribePipeChanges(deps: Deps, cache: PipeCache): Promise<() => Promise<void>> {
  const channel = pipesChangedChannel(deps.config.redisPrefix);
  const sub = createRedis(deps.config, 'subscriber', {
    autoResubscribe: false,
    enableOfflineQueue: false,
    connectTimeout: deps.config.dbTimeoutMs,
  });
  sub.on('error', (err: Error) => deps.log.debug('pipe subscriber error', { error: err.message }));
  sub.on('message', (from: string, text: string) => {
    if (from !== channel) return;
    const change = parsePipeChange(text);
    // This process's own changes dropped the entry when they were made (below).
    if (change.origin !== deps.changes.origin) cache.invalidate(change.id);
  });
  // This process's own pipe changes drop the entry before the change answers.
  const stopLocal = deps.changes.on((change) => {
    if (change.kind === 'pipe') cache.invalidate(change.id);
  });
  sub.on('close', () => cache.goOffline());
  const subscribe = async () => {
    await sub.subscribe(channel);
    cache.goLive();
  };
  let closed = false;
  sub.on('ready', () => {
    // Refused or lost: a new connection tries again, unless the feed was closed meanwhile.
    if (!cache.isLive)
      subscribe().catch(() => {
        if (!closed) sub.disconnect(true);
      });
  });
  try {
    await sub.connect();
    if (!cache.isLive) await subscribe();
  } catch (err) {
    stopLocal();
    sub.disconnect();
    throw err;
  }
  return async () => {
    closed = true;
    stopLocal();
    sub.removeAllListeners('close');
    cache.goOffline();
    await sub.quit().catch(() => sub.disconnect());
  };
}
