import type { IncomingMessage } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createUnzip } from 'node:zlib';
import { HeraldError, type ParamValue } from '../errors/index.js';
import { decodeValidUtf8 } from '../text/utf8.js';
import { formPayloadText, isFormContentType } from './form-body.js';
import {
  bodyEncodingOf,
  bodyTooLarge,
  checkKeys,
  checkText,
  explainInvalidUtf8,
  explainParseFailure,
  hasBody,
  isJsonContentType,
  undecompressable,
  unsupportedEncoding,
} from './json-rules.js';

/*
 * The one JSON body reader, used by the send-pipemsg door and by the Koa routes (middleware/
 * json-body.ts), with the rules of json-rules.ts. It is lean because send-pipemsg is the one
 * endpoint under third-party volume.
 *
 * - Content-Type must be JSON (application/json, or any type with a +json suffix): else 415.
 * - Content-Encoding identity, gzip, deflate or br; anything else 415 naming it (41501). The
 *   limit applies to the declared length and to the decoded text, so a small compressed body
 *   cannot unpack into a huge one.
 * - The text is UTF-8 (a leading byte-order mark is dropped). It must be a JSON object or
 *   array (400), within the limit (413), without forbidden keys (400), and its strings valid
 *   Unicode: invalid UTF-8 bytes or a lone surrogate escape (`"\ud800"`), which would be kept
 *   as U+FFFD, are 400 naming the field.
 * - A POST without a body, or with an empty one, reads as `{}` with the text ''.
 * - With `form` (template pipes), an application/x-www-form-urlencoded body is taken too: the
 *   JSON in its `payload` field is read as if it had been the body (form-body.ts).
 */

export interface JsonBody {
  /** The parsed body: an object or an array. */
  readonly value: unknown;
  /** The text as received (decoded), for hashing and parsing. */
  readonly text: string;
  /** The bytes of `text` (decompressed, without a byte-order mark), for template input. */
  readonly bytes: Buffer;
  /**
   * The body as received, decompressed (a byte-order mark kept): what a sender's signature
   * covers. The same bytes as `bytes` for JSON without a byte-order mark; for a form body, the
   * form, while `text` and `bytes` are its `payload`.
   */
  readonly raw: Buffer;
}

/** How a body may come, besides JSON. */
export interface BodyOptions {
  /** Take an application/x-www-form-urlencoded body with the JSON in its `payload` field. */
  readonly form?: boolean;
}

/**
 * The decompressor a Content-Encoding needs: null for none (identity), undefined for an
 * encoding Herald does not take.
 */
function decoderFor(req: IncomingMessage): Transform | null | undefined {
  switch (bodyEncodingOf(req.headers['content-encoding'])) {
    case 'identity':
      return null;
    case 'gzip':
    case 'deflate':
      // createUnzip takes gzip and zlib-wrapped deflate alike, telling them by their header.
      return createUnzip();
    case 'br':
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

/** The first character a strict JSON body may start with, after whitespace: `{` or `[`. */
const STRICT_START = /^[ \t\n\r]*[[{]/;

function parse(text: string): unknown {
  if (text === '') return {}; // as a POST without a body
  if (!STRICT_START.test(text)) throw explainParseFailure(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw explainParseFailure(text);
  }
  checkKeys(value);
  checkText(value, text);
  return value;
}

const unreadable = (detail: ParamValue): HeraldError => new HeraldError('BODY_UNREADABLE', { detail });

/**
 * Reads and parses the request's JSON body. Rejects with a HeraldError: 413 over `limitBytes`
 * (the rest of the body is then left unread: answer with `Connection: close`), 415 for a type
 * or encoding that is not JSON, 400 for anything unparsable or cut short.
 */
export function readJsonBody(
  req: IncomingMessage,
  limitBytes: number,
  options: BodyOptions = {},
): Promise<JsonBody> {
  if (!hasBody(req.headers)) {
    const empty = Buffer.alloc(0);
    return Promise.resolve({ value: {}, text: '', bytes: empty, raw: empty });
  }
  const form = options.form === true && isFormContentType(req.headers['content-type']);
  if (!form && !isJsonContentType(req.headers['content-type']))
    return Promise.reject(new HeraldError('UNSUPPORTED_MEDIA_TYPE'));
  const decoder = decoderFor(req);
  if (decoder === undefined) return Promise.reject(unsupportedEncoding(req.headers['content-encoding']));
  // A declared length over the limit, compressed or not: no compressor makes JSON bigger.
  if (Number(req.headers['content-length']) > limitBytes) {
    return Promise.reject(bodyTooLarge(limitBytes));
  }
  const source: Readable = decoder === null ? req : req.pipe(decoder);

  return new Promise<JsonBody>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (err: HeraldError | null): void => {
      if (settled) return;
      settled = true;
      source.off('data', onData);
      if (decoder !== null) {
        req.unpipe(decoder);
        decoder.destroy();
      }
      if (err !== null) {
        reject(err);
        return;
      }
      const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      let bytes = raw;
      // A UTF-8 byte-order mark (EF BB BF) is not part of the JSON.
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
      try {
        if (form) {
          const payload = formPayloadText(raw);
          resolve({ value: parse(payload), text: payload, bytes: Buffer.from(payload, 'utf8'), raw });
          return;
        }
        const text = decodeValidUtf8(bytes);
        if (text === undefined) throw explainInvalidUtf8(bytes);
        resolve({ value: parse(text), text, bytes, raw });
      } catch (parseErr) {
        reject(parseErr);
      }
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limitBytes) finish(bodyTooLarge(limitBytes));
      else chunks.push(chunk);
    };
    source.on('data', onData);
    source.once('end', () => finish(null));
    source.once('error', (err: Error) =>
      finish(source === req ? unreadable(err.message) : undecompressable(err)),
    );
    // The client went away before the whole body arrived ('end' comes first on a complete body).
    req.once('close', () => {
      if (!req.complete) {
        finish(
          unreadable({
            'zh-CN': '请求体未完整送达，连接已关闭',
            'en-US': 'the connection closed before the whole body arrived',
          }),
        );
      }
    });
  });
}
