import { randomUUID } from 'node:crypto';
import type { Logger } from '../log/logger.js';

/*
 * One log line per request, whichever way it was served (Koa or the send-pipemsg front door),
 * with the route pattern and path only: never the query string, which can hold a pipe token,
 * and never headers.
 */

const REQUEST_ID = /^[\w.-]{1,64}$/;

/** The caller's X-Request-Id when it is a sane id, else a new one. Echoed on the answer. */
export const requestIdFrom = (given: string | undefined): string =>
  given !== undefined && REQUEST_ID.test(given) ? given : randomUUID();

export interface RequestOutcome {
  readonly requestId: string;
  readonly method: string;
  /** The route pattern that served it, null when none matched. */
  readonly route: string | null;
  readonly path: string;
  readonly status: number;
  /** performance.now() when the request arrived. */
  readonly startedAt: number;
  /** For 5xx answers: the id the client was given, and what was thrown. */
  readonly errorId?: string | undefined;
  readonly failure?: unknown;
}

export function logRequest(log: Logger, o: RequestOutcome): void {
  const fields = {
    request_id: o.requestId,
    method: o.method,
    route: o.route,
    path: o.path,
    status: o.status,
    duration_ms: Math.round((performance.now() - o.startedAt) * 100) / 100,
    ...(o.errorId ? { error_id: o.errorId, error: o.failure } : {}),
  };
  if (o.status >= 500) log.error('request', fields);
  else log.info('request', fields);
}
