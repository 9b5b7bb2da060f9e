import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { encodeUtf8 } from '../../text/utf8.js';

/** Sockets kept open per upstream host between relay requests (keep-alive). */
const MAX_SOCKETS_PER_HOST = 64;

// One keep-alive pool per process: a worker posts every message of a relay bot to the same
// host, and reusing connections saves a TCP (and TLS) handshake per message. node:http is used
// rather than fetch because fetch's per-request overhead showed in the worker's CPU profile.
const agents = {
  'http:': new HttpAgent({ keepAlive: true, maxSockets: MAX_SOCKETS_PER_HOST }),
  'https:': new HttpsAgent({ keepAlive: true, maxSockets: MAX_SOCKETS_PER_HOST }),
} as const;

export interface PostResult {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/** Thrown when no complete answer arrived within the time limit. */
export class HttpTimeoutError extends Error {
  override readonly name = 'HttpTimeoutError';
}

// The body is encoded to UTF-8 once, here. Handed to node:http as a string, a card's 30 KB of
// JSON with any Chinese in it (a two-byte string in V8) was walked three times on the relay's
// path: Buffer.byteLength for Content-Length, again inside write(), then encoded for the socket.
// Measured on 16 concurrent keep-alive POSTs of such a body to a local server: 244 µs of client
// CPU per POST as a string, 195 encoded once with TextEncoder (200 with Buffer.from). encodeUtf8
// (text/utf8.ts) then took the encoding itself from 34 to 10 µs for such a body (3 µs more for
// one of ASCII only).

/**
 * POSTs `body` (JSON text) and reads the whole answer. Rejects with HttpTimeoutError after
 * `timeoutMs` (headers and body together), or with the socket's error on a connection failure.
 */
export function postJson(
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  timeoutMs: number,
): Promise<PostResult> {
  const target = new URL(url);
  const protocol = target.protocol === 'https:' ? 'https:' : 'http:';
  const send = protocol === 'https:' ? httpsRequest : httpRequest;
  const bytes = encodeUtf8(body);
  return new Promise<PostResult>((resolve, reject) => {
    const req = send(target, {
      method: 'POST',
      agent: agents[protocol],
      headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': bytes.byteLength },
    });
    const timer = setTimeout(() => {
      req.destroy(new HttpTimeoutError(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    req.end(bytes);
  });
}
