import type { Config } from '../../config/index.js';
import { createRedis, type RedisConfig } from '../../redis/clients.js';
import { directoryChangeChannel, directoryFeedName } from '../../redis/keys.js';
import type { Deps } from '../deps.js';
import type { DirectoryChange, DirectoryChangeKind, LocalChanges } from '../local-changes.js';

/*
 * Change notifications for the records other processes cache: the directory, and also templates
 * and bots, which workers read for every pipe message too. These records change rarely, so other
 * processes cache them; every write publishes one message on the directoryChangeChannel so
 * those caches can drop the entry. Redis pub/sub is
 * fire-and-forget: a subscriber that was disconnected misses messages, so subscribers get
 * `onResync` after every reconnect (drop everything), and caches should keep a TTL as well.
 */

export type { DirectoryChange, DirectoryChangeKind } from '../local-changes.js';

const KINDS: ReadonlySet<string> = new Set(['guild', 'channel', 'member', 'user', 'template', 'bot']);

/**
 * Age after which a cache fed by this feed re-reads an entry even without a change notification,
 * in ms: the bound on staleness should a notification be lost (pub/sub is fire-and-forget).
 */
export const DIRECTORY_CACHE_FRESH_MS = 60_000;
/** How often a change that could not be published is tried again, in ms. */
export const PUBLISH_RETRY_MS = 250;
/** For how long, in ms: past the caches' freshness no cache still serves what it would drop. */
export const PUBLISH_RETRY_FOR_MS = DIRECTORY_CACHE_FRESH_MS;

/** The pub/sub channel name. */

/**
 * Publishes one change. The write it reports has already happened, so a Redis failure here is
 * logged, not thrown: the caller's write succeeded. The change is then published again every
 * PUBLISH_RETRY_MS in the background until Redis takes it (or PUBLISH_RETRY_FOR_MS have passed):
 * a worker whose own connection stayed up would otherwise go on sending with the old template or
 * a revoked permission until its cache entry aged out.
 */
export async function publishDirectoryChange(deps: Deps, change: DirectoryChange): Promise<void> {
  const message: DirectoryChange = {
    kind: change.kind,
    id: change.id,
    ...(change.guild_id !== undefined ? { guild_id: change.guild_id } : {}),
  };
  // This process's caches first, before the write answers; the others through Redis.
  deps.changes.emit(message);
  const payload = JSON.stringify({ ...message, origin: deps.changes.origin });
  try {
    await deps.redis.publish(directoryChangeChannel(deps.config.redisPrefix), payload);
  } catch (err) {
    deps.log.warn('directory change not published yet; retrying', {
      kind: change.kind,
      id: change.id,
      error: err instanceof Error ? err.message : String(err),
    });
    publishLater(deps, message, payload, Date.now());
  }
}

function publishLater(deps: Deps, change: DirectoryChange, payload: string, since: number): void {
  const timer = setTimeout(() => {
    deps.redis.publish(directoryChangeChannel(deps.config.redisPrefix), payload).then(
      () => deps.log.info('directory change published after a retry', { kind: change.kind, id: change.id }),
      () => {
        if (Date.now() - since < PUBLISH_RETRY_FOR_MS) publishLater(deps, change, payload, since);
        else deps.log.warn('directory change never published', { kind: change.kind, id: change.id });
      },
    );
  }, PUBLISH_RETRY_MS);
  // Not a reason to keep a process alive: a process that ends takes its caches with it, and
  // the others' entries age out.
  timer.unref();
}

/** A message from the channel, or null if it is not a well-formed change. */
export function parseDirectoryChange(text: string): DirectoryChange | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  if (typeof o.kind !== 'string' || !KINDS.has(o.kind) || typeof o.id !== 'string') return null;
  if (o.guild_id !== undefined && typeof o.guild_id !== 'string') return null;
  return {
    kind: o.kind as DirectoryChangeKind,
    id: o.id,
    ...(typeof o.guild_id === 'string' ? { guild_id: o.guild_id } : {}),
    ...(typeof o.origin === 'string' ? { origin: o.origin } : {}),
  };
}

/** How long the directory feed waits before a new connection after its SUBSCRIBE was refused, in ms. */
const RESUBSCRIBE_RETRY_MS = 1_000;

export interface DirectorySubscription {
  close(): Promise<void>;
}

export interface SubscribeOptions {
  /** Called after a reconnect (not the first connect): messages may have been missed. */
  readonly onResync?: () => void;
  /** Called with connection errors (ioredis keeps reconnecting on its own). */
  readonly onError?: (err: Error) => void;
  /**
   * Called when the connection is lost (and on close): until `onResync`, changes may be missed,
   * so caches fed by this subscription must stop serving.
   */
  readonly onDisconnect?: () => void;
  /** This process's own changes, which also reach `onChange` at once (local-changes.ts). */
  readonly local?: LocalChanges;
}

/**
 * Subscribes on a dedicated connection (a subscribing Redis connection can run no other
 * command). Resolves once subscribed. Malformed messages are ignored.
 */
export async function subscribeDirectoryChanges(
  config: RedisConfig & Pick<Config, 'redisPrefix'>,
  onChange: (change: DirectoryChange) => void,
  options: SubscribeOptions = {},
): Promise<DirectorySubscription> {
  const channel = directoryChangeChannel(config.redisPrefix);
  // Named, so that an operator (or a test) can find it in CLIENT LIST.
  // Subscribed again by this code after a reconnect, not by ioredis: its own resubscribe has no
  // handler (a connection lost before the answer is an unhandled rejection, which ends the
  // process), and its 'ready' comes before the subscription is confirmed.
  const sub = createRedis(config, 'subscriber', {
    connectionName: directoryFeedName(config.redisPrefix),
    autoResubscribe: false,
  });
  sub.on('error', (err: Error) => options.onError?.(err));
  sub.on('close', () => options.onDisconnect?.());
  let readyOnce = false;
  let closing: Promise<void> | undefined;
  // A SUBSCRIBE whose connection was lost is sent again on the next one by ioredis itself.
  let resubscribing = false;
  sub.on('ready', () => {
    if (!readyOnce) {
      readyOnce = true;
      return;
    }
    if (resubscribing) return;
    resubscribing = true;
    sub.subscribe(channel).then(
      () => {
        resubscribing = false;
        options.onResync?.();
      },
      // Closed for good, or refused on a live connection (an ACL): then a new connection tries
      // again, after a pause (ioredis's own backoff starts anew on every 'ready').
      (err: Error) => {
        resubscribing = false;
        if (closing !== undefined || sub.status !== 'ready') return;
        options.onError?.(err);
        setTimeout(() => {
          if (closing === undefined && sub.status === 'ready') sub.disconnect(true);
        }, RESUBSCRIBE_RETRY_MS).unref();
      },
    );
  });
  sub.on('message', (from: string, text: string) => {
    if (from !== channel) return;
    const change = parseDirectoryChange(text);
    // This process's own changes reached onChange when they were made (options.local).
    if (change && !(options.local && change.origin === options.local.origin)) onChange(change);
  });
  try {
    await sub.connect();
    await sub.subscribe(channel);
  } catch (err) {
    sub.disconnect();
    throw err;
  }
  const stopLocal = options.local?.on((change) => {
    if (change.kind !== 'pipe') onChange(change);
  });
  return {
    close() {
      stopLocal?.();
      closing ??= sub.quit().then(
        () => undefined,
        () => sub.disconnect(),
      );
      return closing;
    },
  };
}
