/** How often the watchdog looks at the driver's server monitors, in ms. */
export const HEARTBEAT_WATCHDOG_INTERVAL_MS = 1_000;

/** The parts of the driver's (internal) server monitor the watchdog reads. */
interface MonitorLike {
  readonly s?: { readonly state?: string };
  readonly connection?: {
    readonly socket?: { readonly destroyed?: boolean; emit(e: string, v: unknown): boolean };
  } | null;
}

/**
 * Works around a hang in the MongoDB driver (seen with 7.8.0; 7.9.0 has the same code): when the
 * server drops the monitoring connection at the moment a heartbeat is sent on it (a database
 * restart or a network cut, while failing operations ask for a check), the heartbeat writes to
 * the already destroyed socket and waits for a 'drain' that never comes. The monitor then never
 * checks again, the server stays "unknown", and every operation fails server selection for the
 * life of the process, long after the database is back (test/workers/failures.test.ts cuts the
 * database mid-run and caught this).
 *
 * Once a second, for each server, a monitor that is still checking over a destroyed socket at
 * two looks in a row gets an 'error' on that socket: the driver's wait rejects, the heartbeat
 * counts as failed, and the monitor carries on (reconnecting when the server answers). A live
 * heartbeat never has a destroyed socket, so nothing else is touched. It reads driver internals
 * defensively: if they change shape, the watchdog simply finds nothing to do.
 */
export function watchHeartbeats(client: unknown): () => void {
  const suspects = new WeakSet<object>();
  const timer = setInterval(() => {
    const servers = (
      client as unknown as { topology?: { s?: { servers?: Map<string, { monitor?: MonitorLike }> } } }
    ).topology?.s?.servers;
    if (!(servers instanceof Map)) return;
    for (const server of servers.values()) {
      const monitor = server.monitor;
      const socket = monitor?.connection?.socket;
      if (!monitor || !socket || monitor.s?.state !== 'monitoring' || socket.destroyed !== true) continue;
      if (!suspects.has(socket)) {
        suspects.add(socket); // the driver may still be about to notice; look again next time
        continue;
      }
      socket.emit('error', new Error('heartbeat stuck on a closed connection'));
    }
  }, HEARTBEAT_WATCHDOG_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
