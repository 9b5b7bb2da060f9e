import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { HeraldError, type Lang, SUCCESS_MESSAGE } from '../errors/index.js';

/** The platform's response envelope. */
export interface Envelope {
  readonly code: number;
  readonly message: string;
  readonly data: unknown;
}

export function success(data: unknown, lang: Lang): Envelope {
  return { code: 0, message: SUCCESS_MESSAGE[lang], data };
}

export { newErrorId } from '../errors/index.js';

/**
 * The one place that turns any thrown value into an HTTP status and envelope. Known errors
 * keep their catalogue entry; anything else is a 500 whose detail stays in the log.
 */
export function toHeraldError(err: unknown): HeraldError {
  if (err instanceof HeraldError) return err;
  return new HeraldError('INTERNAL', {}, { cause: err });
}

export function errorEnvelope(err: HeraldError, lang: Lang, errorId: string | undefined): Envelope {
  if (err.expose) return { code: err.code, message: err.localizedMessage(lang), data: err.data ?? {} };
  // 5xx: a generic message with the error id, never the internal detail.
  const generic = new HeraldError(err.key, { error_id: errorId ?? '' });
  return { code: err.code, message: generic.localizedMessage(lang), data: { error_id: errorId } };
}

/**
 * Writes an envelope on a raw response, for answers given outside Koa (send-pipemsg, and
 * requests refused at the door); Koa routes answer through ctx.body. `close`: the body was left
 * unread, so the connection closes instead of draining it.
 */
export function writeEnvelope(
  res: ServerResponse,
  status: number,
  headers: OutgoingHttpHeaders,
  envelope: Envelope,
  close: boolean,
): void {
  const text = JSON.stringify(envelope);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    ...(close ? { Connection: 'close' } : {}),
  });
  res.end(text);
}
