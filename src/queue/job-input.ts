/*
 * How a template pipe's input travels in its job. The body's bytes go as base64 and become text
 * once, on a render thread. Why not the text itself: a body with characters outside ASCII (any
 * Chinese commit message) is a two-byte JS string, and inside the job's JSON every quote of it is
 * escaped. On the worker's main thread, decoding such a 50 KB GitLab push out of Redis's reply
 * and JSON-parsing the job were the largest items of its CPU profile after garbage collection
 * (`BENCH_PROF=<dir> npm run bench:worker` writes that profile); base64 is plain ASCII with
 * nothing to escape, and its decoding moves to the render thread. The ingest saves too:
 * stringifying the job skips escaping the body.
 *
 * Bodies of INPUT_DEFLATE_MIN_BYTES (a setting, 1 KB by default) or more are deflated first. Webhook JSON repeats itself (the
 * same keys and URLs in every commit), so a 50 KB GitLab push becomes about 9 KB of base64
 * instead of 70 KB: that much less Redis memory for every queued message and every delivered
 * one kept for status reads (a day), and less for Redis, the worker's main thread and the
 * garbage collector to move per message. Deflating costs the ingest about 1 µs per KB (level 1);
 * inflating, on the render thread, about half that (`npm run bench:job-input`).
 *
 * No dependencies but constants: the render threads import this.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { DEFAULT_INPUT_DEFLATE_MIN_BYTES, MAX_BODY_LIMIT_BYTES } from '../config/defaults.js';
import { decodeUtf8 } from '../text/utf8.js';

/**
 * How PipeJob.input is written when it is not plain text: 'base64' (the bytes), or
 * 'deflate-base64' (the bytes, raw deflate, then base64).
 */
export type InputEncoding = 'base64' | 'deflate-base64';

/**
 * zlib level: 1, the fastest. On webhook JSON its output is about 1.3 times level 6's, in a third
 * of the time (50 KB GitLab push: 8.6 K base64 characters in 44 µs against 6.6 K in 147 µs,
 * `npm run bench:job-input`).
 */
const INPUT_DEFLATE_LEVEL = 1;

/**
 * The inflated size guessed from the deflated one (webhook JSON shrinks 3-8x at level 1), as
 * zlib's output chunk: one chunk and no join for most bodies (figures: docs/delivery.md,
 * Scaling). A guess too small costs a join again, one too large a short-lived allocation.
 */
const inflateChunkSize = (deflatedBytes: number): number =>
  Math.min(Math.max(deflatedBytes * 8, 16 * 1024), 1024 * 1024);

/**
 * A template pipe's input: the body's bytes, deflated from `deflateMinBytes` on (the
 * INPUT_DEFLATE_MIN_BYTES setting) when that pays, in base64.
 */
export function bodyInput(
  bytes: Buffer,
  deflateMinBytes = DEFAULT_INPUT_DEFLATE_MIN_BYTES,
): { input: string; input_encoding: InputEncoding } {
  if (bytes.length >= deflateMinBytes) {
    const packed = deflateRawSync(bytes, { level: INPUT_DEFLATE_LEVEL });
    // Already compressed or random bytes do not shrink; they go as they are.
    if (packed.length < bytes.length)
      return { input: packed.toString('base64'), input_encoding: 'deflate-base64' };
  }
  return { input: bytes.toString('base64'), input_encoding: 'base64' };
}

/**
 * The input as text: the bytes decoded as UTF-8 (invalid bytes become U+FFFD, as when the body
 * was first read), or the text itself (plain pipes' content, and jobs written before base64).
 * Throws on a deflated input that does not inflate, or that would inflate past the largest body
 * any ingest can accept (a job is only ever written by the ingest; the bound is a safety net).
 */
export function inputText(input: string, encoding: InputEncoding | undefined): string {
  switch (encoding) {
    case 'base64':
      return decodeUtf8(Buffer.from(input, 'base64'));
    case 'deflate-base64': {
      const packed = Buffer.from(input, 'base64');
      return decodeUtf8(
        inflateRawSync(packed, {
          maxOutputLength: MAX_BODY_LIMIT_BYTES,
          chunkSize: inflateChunkSize(packed.length),
        }),
      );
    }
    default:
      return input;
  }
}
