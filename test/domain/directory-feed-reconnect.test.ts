import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DirectoryChange, subscribeDirectoryChanges } from '../../src/domain/directory/index.js';

/*
 * The directory feed's connection lost again while it subscribes after a reconnect. Driven by a
 * stand-in Redis (a few RESP commands on loopback) that can drop a connection at its SUBSCRIBE,
 * which the real server cannot be made to do at that instant.
 */

/** The commands of `buffer` (RESP arrays of bulk strings) and what is left of it. */
function parseCommands(buffer: Buffer): { commands: string[][]; rest: Buffer } {
  const commands: string[][] = [];
  let at = 0;
  for (;;) {
    const text = buffer.toString('latin1', at);
    const head = /^\*(\d+)\r\n/.exec(text);
    if (!head) break;
    let pos = head[0].length;
    const args: string[] = [];
    let complete = true;
    for (let i = 0; i < Number(head[1]); i++) {
      const len = /^\$(\d+)\r\n/.exec(text.slice(pos));
      if (!len || text.length < pos + len[0].length + Number(len[1]) + 2) {
        complete = false;
        break;
      }
      pos += len[0].length;
      args.push(text.slice(pos, pos + Number(len[1])));
      pos += Number(len[1]) + 2;
    }
    if (!complete) break;
    commands.push(args);
    at += pos;
  }
  return { commands, rest: buffer.subarray(at) };
}

const bulk = (s: string) => `$${Buffer.byteLength(s)}\r\n${s}\r\n`;

interface StandIn {
  port: number;
  /** Connections so far, in order; each with the commands it received. */
  readonly connections: Array<{ socket: Socket; commands: string[][] }>;
  /** Connections (by their number, from 0) dropped when they send SUBSCRIBE, unanswered. */
  readonly dropAtSubscribe: Set<number>;
  /** Connections whose SUBSCRIBE is never answered, dropped when they send QUIT. */
  readonly holdAtSubscribe: Set<number>;
  close(): Promise<void>;
}

async function startStandIn(): Promise<StandIn> {
  const state: Omit<StandIn, 'port' | 'close'> = {
    connections: [],
    dropAtSubscribe: new Set(),
    holdAtSubscribe: new Set(),
  };
  const server = createServer((socket) => {
    const n = state.connections.length;
    const conn = { socket, commands: [] as string[][] };
    state.connections.push(conn);
    let pending: Buffer = Buffer.alloc(0);
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      const parsed = parseCommands(Buffer.concat([pending, chunk]));
      pending = parsed.rest;
      for (const args of parsed.commands) {
        conn.commands.push(args);
        const name = (args[0] ?? '').toUpperCase();
        if (name === 'SUBSCRIBE') {
          if (state.dropAtSubscribe.has(n)) {
            socket.destroy();
            return;
          }
          if (state.holdAtSubscribe.has(n)) continue;
          socket.write(`*3\r\n${bulk('subscribe')}${bulk(args[1] ?? '')}:1\r\n`);
        } else if (name === 'INFO') socket.write(bulk('# Server\r\nredis_version:7.0.15\r\nloading:0\r\n'));
        else if (name === 'PING') socket.write('+PONG\r\n');
        else if (name === 'QUIT' && state.holdAtSubscribe.has(n)) socket.destroy();
        else if (name === 'QUIT') socket.end('+OK\r\n');
        else socket.write('+OK\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    ...state,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of state.connections) c.socket.destroy();
        server.close(() => resolve());
      }),
  };
}

let standIn: StandIn;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  standIn = await startStandIn();
  process.on('unhandledRejection', onUnhandled);
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await standIn.close();
});

const config = () => ({
  redisUrl: `redis://127.0.0.1:${standIn.port}`,
  redisMode: 'standalone' as const,
  redisNodes: [],
  redisSentinelName: '',
  dbTimeoutMs: 2_000,
  redisPrefix: 'feed-reconnect',
});
const CHANNEL = 'feed-reconnect:directory-changed';
const subscribes = (n: number) =>
  standIn.connections[n]?.commands.filter((a) => a[0]?.toUpperCase() === 'SUBSCRIBE' && a[1] === CHANNEL)
    .length ?? 0;
/** Unhandled rejections surface on the turns after their cause: waits a few. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('the directory feed, its connection lost again while it subscribes after a reconnect', () => {
  it('subscribes once on the next connection, says it resynced only then, and gets changes again', async () => {
    const seen: DirectoryChange[] = [];
    const resyncs: number[] = [];
    const first = standIn.connections.length;
    const sub = await subscribeDirectoryChanges(config(), (c) => seen.push(c), {
      onResync: () => resyncs.push(standIn.connections.length - first),
    });
    try {
      // The first reconnect is dropped at its SUBSCRIBE; the next one is answered.
      standIn.dropAtSubscribe.add(first + 1);
      standIn.connections[first]?.socket.destroy();
      await expect.poll(() => resyncs, { timeout: 15_000 }).toEqual([3]);
      expect([subscribes(first), subscribes(first + 1), subscribes(first + 2)]).toEqual([1, 1, 1]);
      const message = JSON.stringify({ kind: 'user', id: 'u-after' });
      standIn.connections[first + 2]?.socket.write(
        `*3\r\n${bulk('message')}${bulk(CHANNEL)}${bulk(message)}`,
      );
      await expect.poll(() => seen.map((c) => c.id), { timeout: 5_000 }).toEqual(['u-after']);
    } finally {
      await sub.close();
    }
    await settle();
    expect(unhandled).toEqual([]);
  });

  it('closed while that SUBSCRIBE is unanswered, raises no unhandled rejection (one would end the process)', async () => {
    const first = standIn.connections.length;
    const sub = await subscribeDirectoryChanges(config(), () => {});
    standIn.holdAtSubscribe.add(first + 1);
    standIn.connections[first]?.socket.destroy();
    await expect.poll(() => subscribes(first + 1), { timeout: 15_000 }).toBe(1);
    await sub.close();
    await settle();
    expect(unhandled).toEqual([]);
  });
});
