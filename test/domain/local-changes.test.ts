import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishDirectoryChange } from '../../src/domain/directory/change-feed.js';
import { type LocalChange, LocalChanges } from '../../src/domain/local-changes.js';
import { announcePipeChange } from '../../src/domain/pipes/pipe-cache.js';
import { directoryChangeChannel, pipesChangedChannel } from '../../src/redis/keys.js';
import { WorkerCaches } from '../../src/workers/caches.js';
import { addTestMember, createTestChannel, createTestGuild } from '../helpers/directory.js';
import { createTestBot, startTestApp, type TestApp } from '../helpers/test-app.js';

describe('LocalChanges', () => {
  it('tells every listener synchronously, until it is stopped; a failing listener is passed over', () => {
    const changes = new LocalChanges();
    const seen: LocalChange[] = [];
    changes.on(() => {
      throw new Error('a broken cache');
    });
    const stop = changes.on((c) => seen.push(c));
    changes.emit({ kind: 'pipe', id: 'p1' });
    expect(seen).toEqual([{ kind: 'pipe', id: 'p1' }]);
    stop();
    changes.emit({ kind: 'bot', id: 'b1' });
    expect(seen).toHaveLength(1);
  });
});

/*
 * On the real store and Redis. Each change is announced without awaiting, and the cache is looked
 * at in the same synchronous turn: Redis pub/sub cannot have delivered anything yet, so an entry
 * that is gone was dropped by the local announcement (with pub/sub alone, it would still be there).
 */
describe("a process's own changes reach its caches before the change answers", () => {
  let app: TestApp;
  let botId: string;
  let pipeId: string;
  let markerPipeId: string;
  let channelId: string;

  beforeAll(async () => {
    app = await startTestApp('local_changes');
    const bot = await createTestBot(app, { name: 'local changes' });
    botId = bot.id;
    const guild = await createTestGuild(app);
    const channel = await createTestChannel(app, guild.id);
    await addTestMember(app, guild.id, bot.bot.user_id as string);
    const r = await app.request<{ pipe: { id: string } }>('POST', '/admin/api/pipe/create', {
      admin: true,
      json: { bot_id: botId, title: 'local', channel_id: channel.id },
    });
    pipeId = r.body.data.pipe.id;
    channelId = channel.id;
    const marker = await app.request<{ pipe: { id: string } }>('POST', '/admin/api/pipe/create', {
      admin: true,
      json: { bot_id: botId, title: 'marker', channel_id: channel.id },
    });
    markerPipeId = marker.body.data.pipe.id;
  });

  /** Loads `id` until it stays cached (echoes of earlier writes may still drop it once). */
  const cached = async <V>(
    cache: { get(k: string): Promise<V | null>; peek(k: string): unknown },
    id: string,
  ) =>
    expect
      .poll(async () => {
        await cache.get(id);
        await new Promise((r) => setTimeout(r, 20));
        return cache.peek(id);
      })
      .toBeDefined();
  afterAll(async () => {
    await app?.close();
  });

  it('a pipe change drops the pipe from the token cache', async () => {
    const pipes = app.res.pipeRuntime.pipes;
    expect(await pipes.get(pipeId)).toMatchObject({ id: pipeId });
    expect(pipes.peek(pipeId)).toBeDefined();
    const announced = announcePipeChange(app.res, pipeId);
    expect(pipes.peek(pipeId)).toBeUndefined();
    await announced;
  });

  it("a bot change drops the cached pipes (they carry the bot's enabled flag)", async () => {
    const pipes = app.res.pipeRuntime.pipes;
    // The previous test's message also comes back through this process's own subscription and
    // drops the entry once more: load until it stays.
    await expect
      .poll(async () => {
        await pipes.get(pipeId);
        return pipes.peek(pipeId);
      })
      .toBeDefined();
    const published = publishDirectoryChange(app.res, { kind: 'bot', id: botId });
    expect(pipes.peek(pipeId)).toBeUndefined();
    await published;
  });

  it("skips its own pipe echo; honours another process's change, and an older publisher's bare id", async () => {
    const pipes = app.res.pipeRuntime.pipes;
    const channel = pipesChangedChannel(app.config.redisPrefix);
    await cached(pipes, pipeId);
    await cached(pipes, markerPipeId);
    // Messages on one channel arrive in order: once the marker is gone, the first was handled.
    await app.res.redis.publish(channel, `${pipeId} ${app.res.changes.origin}`);
    await app.res.redis.publish(channel, `${markerPipeId} another-process`);
    await expect.poll(() => pipes.peek(markerPipeId)).toBeUndefined();
    expect(pipes.peek(pipeId)).toBeDefined();
    await app.res.redis.publish(channel, pipeId);
    await expect.poll(() => pipes.peek(pipeId)).toBeUndefined();
  });

  it("skips its own directory echo; honours another process's change", async () => {
    const { pipes, channels } = app.res.pipeRuntime;
    const channel = directoryChangeChannel(app.config.redisPrefix);
    await cached(pipes, pipeId);
    await cached(channels, channelId);
    const own = { kind: 'bot', id: botId, origin: app.res.changes.origin };
    await app.res.redis.publish(channel, JSON.stringify(own));
    await app.res.redis.publish(
      channel,
      JSON.stringify({ kind: 'channel', id: channelId, origin: 'another' }),
    );
    await expect.poll(() => channels.peek(channelId)).toBeUndefined();
    expect(pipes.peek(pipeId)).toBeDefined(); // a bot change would have cleared the pipes
    await app.res.redis.publish(channel, JSON.stringify({ ...own, origin: 'another' }));
    await expect.poll(() => pipes.peek(pipeId)).toBeUndefined();
  });

  it("a worker's caches drop a changed bot at once, and stop listening once closed", async () => {
    const caches = new WorkerCaches(app.res);
    await caches.start(app.res);
    try {
      expect(await caches.bots.get(botId)).toMatchObject({ id: botId });
      const published = publishDirectoryChange(app.res, { kind: 'bot', id: botId });
      expect(caches.bots.peek(botId)).toBeUndefined();
      await published;
    } finally {
      await caches.close();
    }
    // Closed: the listener is gone, so a local change no longer reaches these caches.
    await caches.bots.get(botId);
    const entry = caches.bots.peek(botId);
    app.res.changes.emit({ kind: 'bot', id: botId });
    expect(caches.bots.peek(botId)).toBe(entry);
  });
});
