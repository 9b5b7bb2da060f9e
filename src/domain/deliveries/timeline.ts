import { HeraldError, NotFoundError } from '../../errors/index.js';
import type { BotRecord, Page, PageRequest, TimelineMessage } from '../../store/index.js';
import type { Deps } from '../deps.js';
import {
  botPermissionsInChannel,
  getUsers,
  type PlatformUser,
  toPlatformUser,
  unknownUserRecord,
} from '../directory/index.js';
import { hasPermission, PERMISSION } from '../permissions.js';

/** A quoted message as the list shows it. */
export interface QuoteView {
  readonly id: string;
  readonly type: number;
  readonly content: string;
  readonly create_at: number;
  readonly author: PlatformUser;
}

/** A timeline message in the platform's message/list shape. */
export interface MessageView {
  readonly id: string;
  readonly type: number;
  readonly content: string;
  readonly author: PlatformUser;
  readonly create_at: number;
  readonly quote: QuoteView | null;
  readonly nonce: string;
  /** Only on a message edited in place (a grouped pipe's update mode): when, in ms. */
  readonly updated_at?: number;
}

/**
 * A channel's timeline (messages delivered by store-sink bots), newest first. The asking bot
 * must be able to view the channel: an unknown channel is 404, one it cannot view is 403.
 */
export async function listChannelMessages(
  deps: Deps,
  bot: BotRecord,
  channelId: string,
  page: PageRequest,
): Promise<Page<MessageView>> {
  const access = await botPermissionsInChannel(deps, bot, channelId);
  if (!access) throw new NotFoundError('channel');
  if (!hasPermission(access.permissions, PERMISSION.VIEW_CHANNELS)) {
    throw new HeraldError('CHANNEL_NOT_VISIBLE', { channel_id: channelId });
  }
  const found = await deps.store.messages.listByChannel(channelId, page);
  const quoteIds = [...new Set(found.items.map((m) => m.quote_id).filter((q): q is string => q !== null))];
  const quotes = (await deps.store.messages.getMany(quoteIds)).filter((q) => q.channel_id === channelId);
  const authorIds = [...new Set([...found.items, ...quotes].map((m) => m.author_id))];
  const users = new Map((await getUsers(deps, authorIds)).map((u) => [u.id, u]));
  const author = (m: TimelineMessage) =>
    toPlatformUser(users.get(m.author_id) ?? unknownUserRecord(m.author_id));
  const quoteById = new Map(quotes.map((q) => [q.id, q]));
  return {
    total: found.total,
    items: found.items.map((m) => {
      const q = m.quote_id ? quoteById.get(m.quote_id) : undefined;
      return {
        id: m.id,
        type: m.type,
        content: m.content,
        author: author(m),
        create_at: m.create_at,
        quote: q
          ? { id: q.id, type: q.type, content: q.content, create_at: q.create_at, author: author(q) }
          : null,
        nonce: m.nonce,
        ...(m.updated_at === undefined ? {} : { updated_at: m.updated_at }),
      };
    }),
  };
}
