import { connect, createServer, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a real service, so a test can cut the connection (the
 * service "goes down") or stall it (the service stops answering, as a stopped process or a
 * black-holed network does) without touching the service other test files share.
 */
export interface TcpProxy {
  readonly port: number;
  /** Refuses new connections and drops open ones. */
  cut(): void;
  /** Accepts connections again. */
  restore(): void;
  /**
   * Stops forwarding, in both directions, on the connections `which` selects (all by default)
   * and on every new one: connections stay open and their bytes are held, as by a server
   * process that was stopped (SIGSTOP).
   */
  stall(which?: (client: Socket) => boolean): void;
  /** Forwards what was held and carries on, on every stalled connection. */
  resume(): void;
  /** Holds every byte sent to the service this long (ms) before passing it on; 0: at once. */
  lag(ms: number): void;
  close(): Promise<void>;
}

interface Link {
  readonly client: Socket;
  readonly upstream: Socket;
  /** Passes the client's bytes on to the service (after the lag, if any). */
  readonly forward: (chunk: Buffer) => void;
  piped: boolean;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const links = new Set<Link>();
  let down = false;
  let stallNew = false;
  let lagMs = 0;
  const pipe = (link: Link): void => {
    if (link.piped) return;
    link.piped = true;
    link.client.on('data', link.forward);
    link.client.resume();
    link.upstream.pipe(link.client);
  };
  const hold = (link: Link): void => {
    link.piped = false;
    link.client.off('data', link.forward);
    link.upstream.unpipe(link.client);
    link.client.pause();
    link.upstream.pause();
  };
  const server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    sockets.add(client);
    sockets.add(upstream);
    // Timers of equal delay fire in order: a lagged stream keeps its byte order.
    const forward = (chunk: Buffer): void => {
      if (lagMs === 0) upstream.write(chunk);
      else setTimeout(() => upstream.writable && upstream.write(chunk), lagMs);
    };
    const link: Link = { client, upstream, forward, piped: false };
    links.add(link);
    if (stallNew) client.pause();
    else pipe(link);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
      links.delete(link);
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
    links.clear();
  };
  return {
    port,
    cut,
    restore() {
      down = false;
    },
    stall(which) {
      if (which === undefined) stallNew = true;
      for (const link of links) if (which === undefined || which(link.client)) hold(link);
    },
    resume() {
      stallNew = false;
      for (const link of links) pipe(link);
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
