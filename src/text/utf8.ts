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
 * Bytes to text as decodeUtf8 does, or undefined when they are not valid UTF-8 (which decodeUtf8
 * would turn into U+FFFD). The same simdutf checks, so it costs no more.
 */
export function decodeValidUtf8(bytes: Buffer): string | undefined {
  if (isAscii(bytes)) return bytes.toString('utf8');
  if (!isUtf8(bytes)) return undefined;
  if (!HAS_ICU || bytes.length < MIN_LENGTH) return bytes.toString('utf8');
  return transcode(bytes, 'utf8', 'utf16le').toString('utf16le');
}

/** Offset of the first byte that starts no valid UTF-8 sequence, or -1: for error messages. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    // Lead byte: sequence length, its payload bits, and the least code point it may encode.
    let n: number;
    let cp: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [n, cp, min] = [1, b & 0x1f, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [n, cp, min] = [2, b & 0x0f, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [n, cp, min] = [3, b & 0x07, 0x10000];
    else return i;
    if (i + n >= bytes.length) return i;
    for (let k = 1; k <= n; k++) {
      const c = bytes[i + k]!;
      if ((c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return -1;
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
