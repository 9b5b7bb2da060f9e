/*
 * Long text kept at rest in a smaller form: brotli (quality 1), then base64. For the message a
 * delivery record keeps as sent (its `rendered`): a GitLab push card of 20 commits is 30 K
 * characters of JSON, which written as it is made the sent records several times larger and
 * cost the store about 1 ms of CPU per message (FerretDB converts every document), and the
 * worker about as much again to carry it through the sent log escaped inside JSON. Packed it is
 * about 4 K of plain ASCII. Quality 1 rather than deflate level 1 (queue/job-input.ts): on that
 * card it was the faster of the two here, at a similar size (3.0 KB against 3.1 KB before
 * base64). Packing runs on a render thread where there is one (render-pool/render-thread.ts).
 *
 * No dependencies but text/utf8.ts: the render threads import this.
 */
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import { encodeUtf8 } from './utf8.js';

/** Text shorter than this (UTF-16 units) is kept as it is: packing it saves too little. */
export const PACK_MIN_CHARS = 1024;

/** The largest text unpackText gives back, in bytes (a message is far shorter). */
const UNPACK_MAX_BYTES = 16 * 1024 * 1024;

/** `text` packed (brotli, base64), or null when it is short or would not shrink. */
export function packText(text: string): string | null {
  if (text.length < PACK_MIN_CHARS) return null;
  // Encoded by ICU (text/utf8.ts) rather than by the string's own conversion inside zlib.
  const packed = brotliCompressSync(encodeUtf8(text), {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 1,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: text.length,
    },
  }).toString('base64');
  return packed.length < text.length ? packed : null;
}

/** The text packText packed; throws on anything else. */
export function unpackText(packed: string): string {
  return brotliDecompressSync(Buffer.from(packed, 'base64'), { maxOutputLength: UNPACK_MAX_BYTES }).toString(
    'utf8',
  );
}
