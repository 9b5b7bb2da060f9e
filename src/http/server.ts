import type { RequestListener } from 'node:http';
import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** A request listener, with what answers requests Node's parser refuses (else Node's bare 400). */
export type HttpHandler = RequestListener & {
  readonly onClientError?: (err: Error, socket: Duplex) => void;
};

export interface RunningServer {
  readonly server: Server;
  readonly port: number;
  /** Stops accepting, waits for in-flight requests up to `timeoutMs`, then cuts what is left. */
  close(timeoutMs: number): Promise<void>;
}

export async function listen(handler: HttpHandler, port: number, host: string): Promise<RunningServer> {
  const server = createServer(handler);
  if (handler.onClientError) server.on('clientError', handler.onClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  let closing: Promise<void> | undefined;
  return {
    server,
    port: typeof address === 'object' && address ? address.port : port,
    close(timeoutMs) {
      closing ??= new Promise<void>((resolve) => {
        // Keep-alive sockets go idle as their last response ends and would hold close() open
        // until the keep-alive timeout, so idle ones are closed as they appear; busy ones get
        // until the timeout.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        const cut = setTimeout(() => server.closeAllConnections(), timeoutMs);
        server.close(() => {
          clearInterval(sweep);
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
