import type { IncomingMessage } from 'node:http';
import { isJsonContentType } from '../json-rules.js';

/*
 * A body's bytes as they arrived, for a signed pipe: a signature covers what the sender sent,
 * before Content-Encoding is undone, while the body reader (read-json-body.ts) hands on the
 * decompressed bytes (and a reader of another type may hand on something it took out of them).
 * Tapping the request's 'data' events beside the reader keeps the reader as it is, whatever it
 * does with the bytes. A JSON body sent as it is needs no tap: its bytes are the reader's (after
 * a byte-order mark, which signatures/verify.ts tries too).
 */

export interface WireBody {
  /** The bytes received, or null when there were more than the limit (not kept). */
  bytes(): Buffer | null;
}

const NONE: WireBody = { bytes: () => null };

/**
 * Call right after the body reader started, in the same turn: it has attached its own 'data'
 * listener by then (so both see every chunk), or it has answered without reading (no body, or
 * a refusal), in which case nothing is tapped and the request is not set flowing.
 */
export function tapWireBody(req: IncomingMessage, limitBytes: number): WireBody {
  const encoding = req.headers['content-encoding'];
  const identity = encoding === undefined || encoding.trim().toLowerCase() === 'identity';
  if ((identity && isJsonContentType(req.headers['content-type'])) || req.readableFlowing !== true)
    return NONE;
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > limitBytes) {
      req.off('data', onData);
      chunks.length = 0;
    } else chunks.push(chunk);
  };
  req.on('data', onData);
  return {
    bytes() {
      req.off('data', onData);
      if (size > limitBytes) return null;
      return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
    },
  };
}
