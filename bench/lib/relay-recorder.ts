import { createServer } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A relay stand-in in a process of its own (used by bench/kill.soak.ts): answers every POST with
 * 200 at once and records its nonce, arrival time (Date.now()) and connection; `GET /arrivals`
 * answers what it recorded, with when each connection closed. Its own process, so that its
 * answers do not wait on (nor line up with) the event loop of the process that sends and kills.
 * Prints `ready <port>` once it listens on loopback.
 */
const arrivals: Array<{ nonce: string; at: number; conn: number }> = [];
const closedAt: Record<number, number> = {};
const connOf = new WeakMap<Socket, number>();
let conns = 0;
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/arrivals') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ arrivals, closedAt }));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (d: Buffer) => chunks.push(d));
  req.on('end', () => {
    const at = Date.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { nonce?: unknown };
    const nonce = String(body.nonce);
    arrivals.push({ nonce, at, conn: connOf.get(req.socket) ?? -1 });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ code: 0, message: 'ok', data: { msg_id: `up-${nonce}` } }));
  });
});
server.on('connection', (socket: Socket) => {
  const id = ++conns;
  connOf.set(socket, id);
  socket.on('close', () => {
    closedAt[id] = Date.now();
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`ready ${typeof address === 'object' && address ? address.port : 0}`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
