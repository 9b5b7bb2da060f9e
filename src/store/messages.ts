import mongoose from 'mongoose';
import { isDuplicateKey } from './db-errors.js';
import type { DeliveryModels } from './delivery-model.js';
import { type Page, type PageRequest, skipOf } from './paging.js';

/** A message in a channel timeline (bots whose sink is `store`). */
export interface TimelineMessage {
  /** The pipe message's msg_id. */
  readonly id: string;
  readonly channel_id: string;
  readonly guild_id: string;
  readonly bot_id: string;
  /** The user who wrote it: the bot's user. */
  readonly author_id: string;
  /** 9 KMarkdown, 10 card. */
  readonly type: number;
  readonly content: string;
  /** The quoted message's id, if any. */
  readonly quote_id: string | null;
  readonly nonce: string;
  /** ms */
  readonly create_at: number;
  /**
   * Group mentions the worker neutralised in `content`; not part of the platform's message
   * shape. Stored only when there are any.
   */
  readonly not_permissions_mention: readonly string[];
  /** When the message was last edited in place (a grouped pipe's update mode), in ms; absent: never. */
  readonly updated_at?: number;
}

/** An edit of a timeline message: its new content, and when. */
export interface TimelineEdit {
  readonly type: number;
  readonly content: string;
  readonly updated_at: number;
  readonly not_permissions_mention: readonly string[];
}

interface MessageDoc extends Omit<TimelineMessage, 'id' | 'not_permissions_mention' | 'updated_at'> {
  _id: string;
  not_permissions_mention?: string[];
  updated_at?: number;
}

const toRecord = (d: MessageDoc): TimelineMessage => ({
  id: d._id,
  channel_id: d.channel_id,
  guild_id: d.guild_id ?? '',
  bot_id: d.bot_id,
  author_id: d.author_id,
  type: d.type,
  content: d.content,
  quote_id: d.quote_id ?? null,
  nonce: d.nonce ?? '',
  create_at: d.create_at,
  not_permissions_mention: d.not_permissions_mention ?? [],
  ...(d.updated_at === undefined || d.updated_at === null ? {} : { updated_at: d.updated_at }),
});

export function createMessageStore({ Message }: DeliveryModels) {
  return {
    /**
     * Adds the message to its channel's timeline. Insert-only with _id = msg_id: a second insert
     * of the same message (a job run again after a crash) answers false and changes nothing.
     */
    async insert(m: TimelineMessage): Promise<boolean> {
      const { id, not_permissions_mention: blocked, ...rest } = m;
      try {
        await Message.collection.insertOne({
          _id: id,
          ...rest,
          ...(blocked.length > 0 ? { not_permissions_mention: [...blocked] } : {}),
        } as never);
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },

    /**
     * Edits message `id` in place (same id and create_at, new content and updated_at); false when
     * there is no such message (deleted, or never stored). One writer per message: the grouping
     * step holds its group's lock (workers/delivery/grouping.ts).
     */
    async edit(id: string, e: TimelineEdit): Promise<boolean> {
      const r = await Message.updateOne(
        { _id: id },
        {
          $set: {
            type: e.type,
            content: e.content,
            updated_at: e.updated_at,
            not_permissions_mention: [...e.not_permissions_mention],
          },
        },
      );
      return r.matchedCount === 1;
    },

    async get(id: string): Promise<TimelineMessage | null> {
      const d = await Message.findById(id).lean<MessageDoc>();
      return d ? toRecord(d) : null;
    },

    async getMany(ids: readonly string[]): Promise<TimelineMessage[]> {
      if (ids.length === 0) return [];
      const docs = await Message.find({ _id: mongoose.trusted({ $in: [...new Set(ids)] }) }).lean<
        MessageDoc[]
      >();
      return docs.map(toRecord);
    },

    /** One channel's timeline, newest first. */
    async listByChannel(channelId: string, req: PageRequest): Promise<Page<TimelineMessage>> {
      const q = { channel_id: channelId };
      const [docs, total] = await Promise.all([
        Message.find(q)
          .sort({ create_at: -1, _id: -1 })
          .skip(skipOf(req))
          .limit(req.pageSize)
          .lean<MessageDoc[]>(),
        Message.countDocuments(q),
      ]);
      return { items: docs.map(toRecord), total };
    },

    countByChannel(channelId: string): Promise<number> {
      return Message.countDocuments({ channel_id: channelId });
    },
  };
}

export type MessageStore = ReturnType<typeof createMessageStore>;
