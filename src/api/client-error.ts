import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { HeraldError } from '../errors/index.js';
import type { Logger } from '../log/logger.js';
import { errorEnvelope } from './envelope.js';
import { formatBytes } from './json-rules.js';
import { pickLang } from './lang.js';
import { logRequest, requestIdFrom } from './request-log.js';

/** An error Node's HTTP server hands to 'clientError': llhttp's carry `code` HPE_*, `reason`, `rawPacket`. */
export type ClientError = Error & { code?: string; reason?: string; rawPacket?: Buffer };

export type ClientErrorListener = (err: ClientError, socket: Duplex) => void;

/** What Node answers each parser refusal with, as a catalogue entry. */
function errorFor(err: ClientError): HeraldError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new HeraldError('HEADERS_TOO_LARGE', { limit: formatBytes(maxHeaderSize) });
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new HeraldError('CHUNK_EXTENSIONS_TOO_LARGE');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new HeraldError('REQUEST_TIMEOUT');
    default:
      // llhttp's reasons are fixed texts ("Invalid header value char"), never the request's bytes.
      return new HeraldError('REQUEST_MALFORMED', {
        detail: err.code?.startsWith('HPE_') && err.reason ? err.reason : 'malformed request',
      });
  }
}

/** A header's value in the refused request's raw bytes, if the parser got that far. */
function rawHeader(raw: string, name: string): string | undefined {
  return new RegExp(`\\r\\n${name}:[ \\t]*([^\\r\\n]*)`, 'i').exec(raw)?.[1];
}

/**
 * The server's 'clientError' listener: a request Node's parser refuses gets the envelope with the
 * catalogue's status and code (not Node's bare 400/431), `Connection: close` and the usual log
 * line, without the target or headers (they are what was malformed, and may hold a token).
 * Language and X-Request-Id are taken from the raw request when they can be read there.
 */
export function answerClientError(log: Logger): ClientErrorListener {
  return (err, socket) => {
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent: boolean } })._httpMessage;
    // Nothing can be written on a closed socket, nor after a response on it began.
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const startedAt = performance.now();
    const raw = err.rawPacket?.toString('latin1') ?? '';
    const requestId = requestIdFrom(rawHeader(raw, 'x-request-id'));
    const error = errorFor(err);
    const text = JSON.stringify(errorEnvelope(error, pickLang(rawHeader(raw, 'accept-language')), undefined));
    socket.end(
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(text)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        `Date: ${new Date().toUTCString()}\r\n` +
        'Connection: close\r\n\r\n' +
        text,
      () => socket.destroy(),
    );
    const method = /^[A-Z]{1,16}(?= )/.exec(raw)?.[0] ?? '';
    logRequest(log, { requestId, method, route: null, path: '', status: error.status, startedAt });
  };
}
