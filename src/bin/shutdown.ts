import type { Logger } from '../log/logger.js';

/**
 * On SIGTERM or SIGINT: stop taking work, let in-flight work finish (bounded by `timeoutMs`),
 * close connections, exit 0. A second signal exits at once.
 */
export function onShutdown(log: Logger, timeoutMs: number, drain: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      log.warn('second signal, exiting now', { signal });
      process.exit(1);
    }
    stopping = true;
    log.info('shutting down', { signal, timeout_ms: timeoutMs });
    const timer = setTimeout(() => {
      log.warn('shutdown timed out, exiting', { timeout_ms: timeoutMs });
      process.exit(0);
    }, timeoutMs + 1_000);
    timer.unref();
    drain().then(
      () => {
        log.info('shut down cleanly');
        process.exit(0);
      },
      (err: unknown) => {
        log.error('error while shutting down', { error: err });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
