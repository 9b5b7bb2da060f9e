import type { Deps } from '../../domain/deps.js';
import {
  listBotGuilds,
  overwriteUserIds,
  toPlatformChannel,
  toPlatformGuild,
  toPlatformUser,
  unknownUserRecord,
} from '../../domain/directory/index.js';
import type { Guild, PlatformContext, PlatformNeeds } from '../../render/index.js';
import type { BotRecord, ChannelRecord, GuildRecord, MemberRecord, UserRecord } from '../../store/index.js';
import type { WorkerCaches } from '../caches.js';

export interface ContextInput {
  readonly bot: BotRecord;
  readonly guild: GuildRecord;
  readonly channel: ChannelRecord;
  readonly botMember: MemberRecord | null;
  readonly targetUserId: string | null;
  readonly targetMember: MemberRecord | null;
  readonly quoteId: string | null;
}

async function usersOf(caches: WorkerCaches, ids: readonly string[]): Promise<UserRecord[]> {
  const found = await Promise.all(ids.map((id) => caches.users.get(id)));
  return found.filter((u): u is UserRecord => u !== null);
}

async function guildView(caches: WorkerCaches, guild: GuildRecord): Promise<Guild> {
  const channels = (await caches.guildChannels.get(guild.id)) ?? [];
  return toPlatformGuild(guild, channels, await usersOf(caches, overwriteUserIds(channels)));
}

/**
 * The platform data a template can ask for, and only what its compiled form says it can ask
 * for (compiled.platformNeeds): a template that never calls PLATFORM loads nothing.
 */
export async function loadPlatformContext(
  deps: Deps,
  caches: WorkerCaches,
  needs: PlatformNeeds,
  input: ContextInput,
): Promise<PlatformContext> {
  const ctx: PlatformContext = {};
  const jobs: Promise<void>[] = [];
  if (needs.guild) {
    jobs.push(
      guildView(caches, input.guild).then((g) => {
        ctx.guild = g;
      }),
    );
  }
  if (needs.channel) {
    jobs.push(
      usersOf(caches, overwriteUserIds([input.channel])).then((users) => {
        ctx.channel = toPlatformChannel(input.channel, users);
      }),
    );
  }
  if (needs.sender) {
    jobs.push(
      caches.users.get(input.bot.user_id).then((u) => {
        ctx.sender = u ? toPlatformUser(u, input.botMember) : null;
      }),
    );
  }
  if (needs.targetUser && input.targetUserId) {
    const id = input.targetUserId;
    jobs.push(
      caches.users.get(id).then((u) => {
        ctx.targetUser = u ? toPlatformUser(u, input.targetMember) : null;
      }),
    );
  }
  if (needs.quote && input.quoteId) {
    jobs.push(
      (async () => {
        // Only a message of this channel's timeline can be quoted.
        const q = await deps.store.messages.get(input.quoteId as string);
        if (!q || q.channel_id !== input.channel.id) return;
        const author = await caches.users.get(q.author_id);
        const member = author ? await caches.member(input.guild.id, author.id) : null;
        ctx.quote = {
          id: q.id,
          type: q.type,
          content: q.content,
          create_at: q.create_at,
          author: author ? toPlatformUser(author, member) : toPlatformUser(unknownUserRecord(q.author_id)),
        };
      })(),
    );
  }
  if (needs.guildById) {
    jobs.push(
      (async () => {
        const guilds = await listBotGuilds(deps, input.bot);
        const views = await Promise.all(guilds.map((g) => guildView(caches, g)));
        const joined: Record<string, Guild> = {};
        for (const v of views) joined[v.id] = v;
        ctx.joinedGuilds = joined;
      })(),
    );
  }
  await Promise.all(jobs);
  return ctx;
}
