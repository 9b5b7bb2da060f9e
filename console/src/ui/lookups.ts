import { ApiError, api } from '../api.ts';
import type { ListPage } from '../deliveries.ts';
import { type Bot, type Channel, type Guild, isTextChannel, type Template } from '../pipe-model.ts';

/*
 * Reads the pipe screens share: whole lists (bots, a bot's templates), the guilds and channels a
 * bot can reach, and names for ids shown in tables.
 */

/** Lists are read whole up to this many pages of 50; past it the screens say the list is cut. */
const MAX_PAGES = 20;

export interface Whole<T> {
  readonly items: T[];
  /** More existed than were read. */
  readonly truncated: boolean;
}

/** Every item of a paged admin list (pages of 50, at most MAX_PAGES). */
export async function listAll<T>(path: string, query: Record<string, string> = {}): Promise<Whole<T>> {
  const items: T[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const res = await api.get<ListPage<T>>(path, { ...query, page, page_size: 50 });
    items.push(...res.items);
    if (page >= res.meta.page_total) return { items, truncated: false };
  }
  return { items, truncated: true };
}

/** Runs `fn` over items with at most `limit` calls in flight, keeping the order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export const loadBots = () => listAll<Bot>('/admin/api/bot/list', { sort: 'name' });

export const loadTemplates = (botId: string) =>
  listAll<Template>('/admin/api/template/list', { bot_id: botId });

/** A guild the bot has joined, with the text channels a pipe of the bot may post into. */
export interface Reach {
  readonly guild: Guild;
  readonly channels: Channel[];
}

/**
 * The guilds whose member list holds the bot's user, with their text channels: the channels
 * pipe/create accepts for this bot. Membership is asked guild by guild (the admin API has no
 * "guilds of a user" list), a few at a time.
 */
export async function loadReach(bot: Pick<Bot, 'user_id'>): Promise<{ reach: Reach[]; truncated: boolean }> {
  const guilds = await listAll<Guild>('/admin/api/guild/list');
  const joined = await mapLimit(guilds.items, 6, async (g) => {
    if (g.user_id === bot.user_id) return true;
    try {
      await api.get('/admin/api/guild-member/view', { guild_id: g.id, user_id: bot.user_id });
      return true;
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return false;
      throw e;
    }
  });
  const mine = guilds.items.filter((_, i) => joined[i]);
  const views = await mapLimit(mine, 6, (g) => guildView(g.id));
  return {
    reach: views.map((g) => ({ guild: g, channels: (g.channels ?? []).filter(isTextChannel) })),
    truncated: guilds.truncated,
  };
}

/** Guild views are kept a short while so a table of pipes names its channels with one call per guild. */
const GUILD_TTL_MS = 30_000;
const guilds = new Map<string, { at: number; value: Promise<Guild> }>();

export function guildView(id: string): Promise<Guild> {
  const hit = guilds.get(id);
  if (hit && Date.now() - hit.at < GUILD_TTL_MS) return hit.value;
  const value = api.get<{ guild: Guild }>('/admin/api/guild/view', { id }).then((r) => r.guild);
  guilds.set(id, { at: Date.now(), value });
  value.catch(() => guilds.delete(id));
  return value;
}

/** Channel names by id for the guilds given (a guild that cannot be read is skipped). */
export async function channelNames(guildIds: readonly string[]): Promise<Map<string, Channel>> {
  const unique = [...new Set(guildIds.filter(Boolean))];
  const views = await mapLimit(unique, 6, (id) => guildView(id).catch(() => null));
  const out = new Map<string, Channel>();
  for (const g of views) for (const c of g?.channels ?? []) out.set(c.id, c);
  return out;
}

/** One channel by id (with its guild id), or null when it no longer exists. */
export async function channelView(id: string): Promise<Channel | null> {
  try {
    return (await api.get<{ channel: Channel }>('/admin/api/channel/view', { id })).channel;
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
}
