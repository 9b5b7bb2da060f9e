import { connect, createServer, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a real service, so a test can cut the connection (the
 * service "goes down") without stopping the service other test files share.
 */
export interface TcpProxy {
  readonly port: number;
  /** Refuses new connections and drops open ones. */
  cut(): void;
  /** Accepts connections again. */
  restore(): void;
  /** Holds every byte sent to the service this long (ms) before passing it on; 0: at once. */
  lag(ms: number): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let down = false;
  let lagMs = 0;
  const server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    sockets.add(client);
    sockets.add(upstream);
    // Timers of equal delay fire in order: a lagged stream keeps its byte order.
    client.on('data', (chunk: Buffer) => {
      if (lagMs === 0) upstream.write(chunk);
      else setTimeout(() => upstream.writable && upstream.write(chunk), lagMs);
    });
    upstream.pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const cut = (): void => {
    down = true;
    for (const s of sockets) s.destroy();
    sockets.clear();
  };
  return {
    port,
    cut,
    restore() {
      down = false;
    },
    lag(ms) {
      lagMs = ms;
    },
    close() {
      cut();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
