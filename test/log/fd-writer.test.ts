import { closeSync, openSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeAllSync } from '../../src/log/fd-writer.js';

/** A connected UNIX socket whose peer reads nothing: its buffer fills, then writes see EAGAIN. */
const path = join(tmpdir(), `herald-fd-writer-${process.pid}.sock`);
let server: Server;
const peers: Socket[] = [];
afterAll(async () => {
  for (const p of peers) p.destroy();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
});

async function unreadSocket(): Promise<Socket> {
  server ??= await new Promise<Server>((resolve) => {
    const s = createServer((peer) => {
      peer.pause();
      peers.push(peer);
    });
    s.listen(path, () => resolve(s));
  });
  const client = connect(path);
  await new Promise((r) => client.once('connect', r));
  peers.push(client);
  return client;
}

describe('writeAllSync', () => {
  it('gives up after the stall limit on a reader that never reads, saying what it dropped', async () => {
    const socket = await unreadSocket();
    const fd = (socket as unknown as { _handle: { fd: number } })._handle.fd;
    const text = 'x'.repeat(8 * 1024 * 1024); // far beyond any socket buffer
    const started = Date.now();
    const failed = writeAllSync(fd, text, 100);
    const took = Date.now() - started;
    expect(failed?.code).toBe('EAGAIN');
    expect(failed?.droppedBytes).toBeGreaterThan(0);
    expect(failed?.droppedBytes).toBeLessThan(text.length); // what fitted was written
    expect(took).toBeGreaterThanOrEqual(100);
  });

  it('never throws: a descriptor it cannot write answers with the error code', () => {
    const fd = openSync(join(tmpdir(), `herald-fd-writer-${process.pid}.txt`), 'w+');
    closeSync(fd);
    expect(writeAllSync(fd, 'lost')).toMatchObject({ code: 'EBADF', droppedBytes: 4 });
  });
});
