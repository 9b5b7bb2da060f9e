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

/**
 * llhttp's refusals in Chinese, by code. The English is llhttp's own reason, which is more
 * precise (one code has several); a code not listed keeps that reason in both languages.
 */
const PARSER_REFUSALS_ZH: Readonly<Record<string, string>> = {
  HPE_INVALID_HEADER_TOKEN: '请求头含有无效的字符或空白',
  HPE_LF_EXPECTED: 'CR 后缺少 LF（换行必须是 CRLF）',
  HPE_CR_EXPECTED: 'LF 前缺少 CR（换行必须是 CRLF）',
  // llhttp's strict checks: a line ending or a chunk that is not as HTTP/1.1 writes it
  HPE_STRICT: '换行或分块不符合 HTTP/1.1 的格式',
  HPE_INVALID_VERSION: '请求行的 HTTP 版本或其后的换行无效',
  HPE_INVALID_METHOD: '请求方法无效',
  HPE_INVALID_CONSTANT: '请求行不是 HTTP 格式',
  HPE_INVALID_URL: '请求地址无效',
  HPE_INVALID_CONTENT_LENGTH: 'Content-Length 无效',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length 重复或与 Transfer-Encoding 冲突',
  HPE_INVALID_TRANSFER_ENCODING: 'Transfer-Encoding 无效或与 Content-Length 冲突',
  HPE_INVALID_CHUNK_SIZE: '分块大小无效',
  HPE_UNEXPECTED_SPACE: '出现了不应有的空白',
};

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
      if (err.code?.startsWith('HPE_') && err.reason) {
        const zh = PARSER_REFUSALS_ZH[err.code] ?? err.reason;
        return new HeraldError('REQUEST_MALFORMED', { detail: { 'zh-CN': zh, 'en-US': err.reason } });
      }
      return new HeraldError('REQUEST_MALFORMED', {
        detail: { 'zh-CN': '请求格式无效', 'en-US': 'malformed request' },
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
