import { isAscii, isUtf8, transcode } from 'node:buffer';

/*
 * UTF-8 to and from JS strings, exactly as Buffer#toString('utf8') and Buffer.from(text) do it,
 * faster for text outside ASCII. Why: V8's own UTF-8 conversion of a two-byte string (any text
 * with Chinese in it) runs at about 1 GB/s or less, and the texts here are tens of KB: decoding a
 * 50 KB GitLab push took 75 µs, the largest single item of a render thread's profile, and
 * encoding a card's 30 KB relay body 34 µs on the worker's main thread. ICU's converter
 * (buffer.transcode) over UTF-16, which a two-byte string is already, takes a third to a quarter
 * of that (`npm run bench:job-input` prints both ways, measured in the same run).
 */

/** Node's ICU may be left out of a custom build (then transcode throws): V8's way is the fallback. */
const HAS_ICU = typeof process.versions.icu === 'string';

/** Below this many bytes (or characters) the detour costs more than it saves (measured at 256). */
const MIN_LENGTH = 256;

/**
 * Bytes to text. Checked by simdutf first (isAscii, isUtf8: about 2 µs for 50 KB): ASCII stays with
 * toString, which V8 reads at memory speed (and keeps one byte per character); invalid bytes, which
 * become U+FFFD, too, as ICU would refuse them.
 */
export function decodeUtf8(bytes: Buffer): string {
  if (!HAS_ICU || bytes.length < MIN_LENGTH || isAscii(bytes) || !isUtf8(bytes))
    return bytes.toString('utf8');
  return transcode(bytes, 'utf8', 'utf16le').toString('utf16le');
}

/**
 * Text to bytes. A string with a lone surrogate (which Buffer.from writes as U+FFFD) is refused by
 * ICU and takes V8's way; JSON.stringify never makes one (it escapes them).
 */
export function encodeUtf8(text: string): Buffer {
  if (!HAS_ICU || text.length < MIN_LENGTH) return Buffer.from(text, 'utf8');
  try {
    return transcode(Buffer.from(text, 'utf16le'), 'utf16le', 'utf8');
  } catch {
    return Buffer.from(text, 'utf8');
  }
}
