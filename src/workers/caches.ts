import type { Deps } from '../domain/deps.js';
import {
  type DirectorySubscription,
  getChannel,
  getGuild,
  getMember,
  getUser,
  listGuildChannels,
  subscribeDirectoryChanges,
} from '../domain/directory/index.js';
import { LiveCache } from '../domain/pipes/live-cache.js';
import { type CompiledTemplate, compileTemplate } from '../render/index.js';
import type { BotRecord, ChannelRecord, GuildRecord, MemberRecord, UserRecord } from '../store/index.js';

/** Most entries each directory cache keeps (oldest dropped first). */
export const DIRECTORY_CACHE_MAX_ENTRIES = 20_000;
/**
 * Age after which a directory entry is re-read even without a change notification, in ms: the
 * bound on staleness should a notification be lost (pub/sub is fire-and-forget).
 */
export const DIRECTORY_CACHE_FRESH_MS = 60_000;
/**
 * Bots are not announced on pub/sub: a bot change (rate, sink, enabled) reaches the workers
 * within this many ms.
 */
export const BOT_CACHE_FRESH_MS = 2_000;
/** Most bots kept. */
export const BOT_CACHE_MAX_ENTRIES = 10_000;
/** Most compiled templates kept (by id and version; an edit makes a new version). */
export const COMPILED_CACHE_MAX_ENTRIES = 2_000;

/**
 * The worker's in-process caches. Directory entries are dropped by the directory change feed
 * (and cleared whenever its connection comes back, since messages may have been missed);
 * compiled templates are keyed by (id, version), so a template edit can never be rendered
 * from a stale compilation: the template record itself is read for every message.
 */
export class WorkerCaches {
  readonly channels: LiveCache<ChannelRecord>;
  readonly guilds: LiveCache<GuildRecord>;
  /** Key `${guild_id}:${user_id}`. */
  readonly members: LiveCache<MemberRecord>;
  readonly users: LiveCache<UserRecord>;
  /** A guild's channels, for the guild object templates see. */
  readonly guildChannels: LiveCache<ChannelRecord[]>;
  readonly bots: LiveCache<BotRecord>;
  /** Relay secrets, kept in memory only, as fresh as the bots. */
  readonly upstreamTokens: LiveCache<string>;
  private readonly compiled = new Map<string, CompiledTemplate>();
  private subscription: DirectorySubscription | undefined;

  constructor(deps: Deps) {
    const opts = { maxEntries: DIRECTORY_CACHE_MAX_ENTRIES, freshMs: DIRECTORY_CACHE_FRESH_MS };
    this.channels = new LiveCache({ ...opts, load: (id) => getChannel(deps, id) });
    this.guilds = new LiveCache({ ...opts, load: (id) => getGuild(deps, id) });
    this.members = new LiveCache({
      ...opts,
      load: (key) => {
        const [guildId = '', userId = ''] = key.split(':');
        return getMember(deps, guildId, userId);
      },
    });
    this.users = new LiveCache({ ...opts, load: (id) => getUser(deps, id) });
    this.guildChannels = new LiveCache({ ...opts, load: (id) => listGuildChannels(deps, id) });
    this.bots = new LiveCache({
      maxEntries: BOT_CACHE_MAX_ENTRIES,
      freshMs: BOT_CACHE_FRESH_MS,
      load: (id) => deps.store.bots.get(id),
    });
    this.upstreamTokens = new LiveCache({
      maxEntries: BOT_CACHE_MAX_ENTRIES,
      freshMs: BOT_CACHE_FRESH_MS,
      load: (id) => deps.store.bots.getUpstreamToken(id),
    });
    // Bots are kept by age alone (no change feed).
    this.bots.goLive();
    this.upstreamTokens.goLive();
  }

  /** Subscribes to directory changes; until then (and after a drop) the caches read through. */
  async start(deps: Deps): Promise<void> {
    const directory = [this.channels, this.guilds, this.members, this.users, this.guildChannels];
    this.subscription = await subscribeDirectoryChanges(
      deps.config.redisUrl,
      deps.config.redisPrefix,
      (change) => {
        switch (change.kind) {
          case 'channel':
            this.channels.invalidate(change.id);
            if (change.guild_id !== undefined) this.guildChannels.invalidate(change.guild_id);
            else this.guildChannels.clear();
            break;
          case 'guild':
            this.guilds.invalidate(change.id);
            this.guildChannels.invalidate(change.id);
            break;
          case 'member':
            if (change.guild_id !== undefined) this.members.invalidate(`${change.guild_id}:${change.id}`);
            else this.members.clear();
            break;
          case 'user':
            this.users.invalidate(change.id);
            break;
        }
      },
      {
        onResync: () => {
          for (const c of directory) c.goLive();
        },
        onError: (err) => deps.log.debug('directory subscriber error', { error: err.message }),
      },
    );
    for (const c of directory) c.goLive();
  }

  member(guildId: string, userId: string): Promise<MemberRecord | null> {
    return this.members.get(`${guildId}:${userId}`);
  }

  /** The compiled template for (id, version); compiles on first use. Throws compile errors. */
  compiledTemplate(id: string, version: number, source: string): CompiledTemplate {
    const key = `${id}:${version}`;
    let c = this.compiled.get(key);
    if (!c) {
      c = compileTemplate(source);
      this.compiled.set(key, c);
      if (this.compiled.size > COMPILED_CACHE_MAX_ENTRIES) {
        const oldest = this.compiled.keys().next().value;
        if (oldest !== undefined) this.compiled.delete(oldest);
      }
    }
    return c;
  }

  async close(): Promise<void> {
    await this.subscription?.close();
  }
}
