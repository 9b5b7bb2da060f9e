import { Socket } from 'node:net';
import { afterEach } from 'vitest';
import { DEFAULT_MONGO_URL, DEFAULT_REDIS_URL } from '../../src/config/defaults.js';

/**
 * Setup file of the `unit` project (vitest.config.ts): its tests run without Redis or the store,
 * and this makes that checked rather than assumed. A connection to either service's port is
 * refused at once (so the client fails instead of waiting for a server), and the test that made
 * it fails with a message saying where the file belongs.
 */
const servicePorts = new Set(
  [process.env.REDIS_URL ?? DEFAULT_REDIS_URL, process.env.MONGO_URL ?? DEFAULT_MONGO_URL].map((u) =>
    Number(new URL(u).port),
  ),
);
type Connect = ((this: Socket, ...args: unknown[]) => Socket) & { attempts?: string[] };
const proto = Socket.prototype as unknown as { connect: Connect };
// With isolation off this file runs again for every test file in the same process: patch once,
// and keep the attempts on the patched function, where every run of this file finds them.
if (!proto.connect.attempts) {
  const connect = proto.connect;
  const guardedConnect: Connect = function (this: Socket, ...args: unknown[]): Socket {
    // net.connect() passes its normalized [options, callback] pair as the first argument.
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const port = Number(
      typeof first === 'object' && first !== null ? (first as { port?: unknown }).port : first,
    );
    if (servicePorts.has(port)) {
      const message = `unit tests run without services, but this one connected to port ${port} (Redis or the store): move its file to the integration project in vitest.config.ts`;
      guardedConnect.attempts?.push(message);
      process.nextTick(() => this.destroy(Object.assign(new Error(message), { code: 'ECONNREFUSED' })));
      return this;
    }
    return connect.apply(this, args);
  };
  guardedConnect.attempts = [];
  proto.connect = guardedConnect;
}
const attempts = proto.connect.attempts ?? [];

afterEach(() => {
  const seen = attempts.splice(0);
  if (seen.length) throw new Error(seen[0]);
});
