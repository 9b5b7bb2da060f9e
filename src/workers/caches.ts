import type { Deps } from '../domain/deps.js';
import {
  // How long an entry is served without a notification (the feed's contract).
  DIRECTORY_CACHE_FRESH_MS,
  type DirectorySubscription,
  getChannel,
  getGuild,
  getMember,
  getUser,
  listGuildChannels,
  subscribeDirectoryChanges,
} from '../domain/directory/index.js';
import { LiveCache } from '../domain/pipes/live-cache.js';
import { createPipeCache, type PipeCache, subscribePipeChanges } from '../domain/pipes/pipe-cache.js';
import type { CompiledTemplate } from '../render/index.js';
import type {
  BotRecord,
  ChannelRecord,
  GuildRecord,
  MemberRecord,
  TemplateRecord,
  UserRecord,
} from '../store/index.js';
import { CompiledTemplates, templateVersionKey } from './render-pool/compiled-templates.js';

/** Most entries each directory cache keeps (oldest dropped first). */
export const DIRECTORY_CACHE_MAX_ENTRIES = 20_000;
/** Most bots kept (bot changes are announced on the change feed, like the directory). */
export const BOT_CACHE_MAX_ENTRIES = 10_000;
/** Most template records kept (key: bot and template id). */
export const TEMPLATE_CACHE_MAX_ENTRIES = 5_000;

/**
 * The worker's in-process caches. Directory entries are dropped by the directory change feed
 * (and cleared whenever its connection comes back, since messages may have been missed); so are
 * bots and template records, whose writes are announced on the same feed. While the feed is
 * down every cache reads through, so a template edit is never rendered from a stale copy;
 * compiled templates are keyed by (id, version) on top of that.
 */
export class WorkerCaches {
  /** The pipes of the messages (a pipe disabled or deleted since its message was accepted). */
  readonly pipes: PipeCache;
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
  /** Template records (deleted ones included, to tell "deleted" from "unknown"); key `${bot_id}:${id}`. */
  readonly templates: LiveCache<TemplateRecord>;
  private readonly compiled = new CompiledTemplates();
  private subscription: DirectorySubscription | undefined;
  private stopPipes: (() => Promise<void>) | undefined;

  constructor(deps: Deps) {
    const opts = { maxEntries: DIRECTORY_CACHE_MAX_ENTRIES, freshMs: DIRECTORY_CACHE_FRESH_MS };
    this.pipes = createPipeCache(deps.store, {
      capacity: deps.config.pipeRateBurst,
      perSecond: deps.config.pipeRatePerSecond,
    });
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
      ...opts,
      maxEntries: BOT_CACHE_MAX_ENTRIES,
      load: (id) => deps.store.bots.get(id),
    });
    this.upstreamTokens = new LiveCache({
      ...opts,
      maxEntries: BOT_CACHE_MAX_ENTRIES,
      load: (id) => deps.store.bots.getUpstreamToken(id),
    });
    this.templates = new LiveCache({
      ...opts,
      maxEntries: TEMPLATE_CACHE_MAX_ENTRIES,
      load: async (key) => {
        const [botId = '', id = ''] = key.split(':');
        const bot = await this.bots.get(botId);
        return bot ? deps.store.templates.getWithTombstone(bot, id) : null;
      },
    });
  }

  /** Subscribes to directory changes; until then (and after a drop) the caches read through. */
  async start(deps: Deps): Promise<void> {
    const directory = [
      this.channels,
      this.guilds,
      this.members,
      this.users,
      this.guildChannels,
      this.bots,
      this.upstreamTokens,
      this.templates,
    ];
    this.stopPipes = await subscribePipeChanges(deps, this.pipes);
    try {
      this.subscription = await subscribeDirectoryChanges(
        deps.config,
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
            case 'bot':
              this.bots.invalidate(change.id);
              // Cached pipes carry their bot's enabled flag.
              this.pipes.clear();
              this.upstreamTokens.invalidate(change.id);
              this.templates.clear(); // keyed by bot: cheaper to refill than to index
              break;
            case 'template':
              // The change names the template, not its bot; template writes are rare.
              this.templates.clear();
              break;
          }
        },
        {
          local: deps.changes,
          onResync: () => {
            this.pipes.clear();
            for (const c of directory) c.goLive();
          },
          // Changes published while the feed is down are lost: every lookup reads through until
          // the feed is back (onResync).
          onDisconnect: () => {
            for (const c of directory) c.goOffline();
          },
          onError: (err) => deps.log.debug('directory subscriber error', { error: err.message }),
        },
      );
    } catch (err) {
      await this.stopPipes();
      throw err;
    }
    for (const c of directory) c.goLive();
  }

  member(guildId: string, userId: string): Promise<MemberRecord | null> {
    return this.members.get(`${guildId}:${userId}`);
  }

  /** The compiled template for (id, version); compiles on first use. Throws compile errors. */
  compiledTemplate(id: string, version: number, source: string): CompiledTemplate {
    return this.compiled.get(templateVersionKey(id, version), source);
  }

  async close(): Promise<void> {
    await this.subscription?.close();
    await this.stopPipes?.();
  }
}
