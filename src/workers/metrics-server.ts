import type { Registry } from 'prom-client';
import { listen, type RunningServer } from '../http/server.js';

/**
 * The worker's GET /metrics in the Prometheus text format. Anything else answers 404. No
 * credentials: bind it to a private interface, as for any Prometheus target.
 */
export function startMetricsServer(registry: Registry, port: number, host: string): Promise<RunningServer> {
  return listen(
    (req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
        return;
      }
      registry.metrics().then(
        (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
        () => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics failed\n'),
      );
    },
    port,
    host,
  );
}
