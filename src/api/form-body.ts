import { ValidationError } from '../errors/index.js';

/*
 * GitHub's webhooks may be set to "Content type: application/x-www-form-urlencoded": the body is
 * then `payload=<the JSON, percent-encoded>`. A template pipe takes it (read-json-body.ts, with
 * `form`): the JSON in `payload` becomes the template's `data`, exactly as if it had been sent as
 * JSON, while the body as received stays available for what covers the raw bytes (signatures).
 */

/** The media type of an HTML form body, the one GitHub sends as its alternative to JSON. */
const FORM_TYPE = 'application/x-www-form-urlencoded';

/** Whether a Content-Type is a form body (any case, parameters such as a charset allowed). */
export function isFormContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const semi = header.indexOf(';');
  return (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase() === FORM_TYPE;
}

/** The name of the field that holds the JSON. */
export const FORM_PAYLOAD_FIELD = 'payload';

const required = () =>
  new ValidationError(FORM_PAYLOAD_FIELD, { 'zh-CN': '为必填项', 'en-US': 'is required' });

/** Percent-decoding as forms encode (`+` is a space); throws on a bad escape or invalid UTF-8. */
function decodeFormComponent(text: string, field: string): string {
  try {
    return decodeURIComponent(text.includes('+') ? text.replaceAll('+', ' ') : text);
  } catch {
    throw new ValidationError(field, {
      'zh-CN': '不是有效的百分号编码 UTF-8',
      'en-US': 'is not valid percent-encoded UTF-8',
    });
  }
}

const NOT_ASCII = /[^\t\n\r\x20-\x7e]/;

/** Whether a field name, decoded, is `payload` (another field's undecodable name is no error). */
function isPayloadName(name: string): boolean {
  if (name === FORM_PAYLOAD_FIELD) return true;
  if (!/[%+]/.test(name)) return false;
  try {
    return decodeFormComponent(name, '') === FORM_PAYLOAD_FIELD;
  } catch {
    return false;
  }
}

/**
 * The text of the form body's `payload` field (its first, if repeated), decoded. The body is
 * read as Latin-1: a form body is ASCII, and any other byte is refused by the decoding of the
 * field (a raw non-ASCII byte is not a percent escape). 400 naming `payload` when the field is
 * missing, empty or not valid percent-encoded UTF-8.
 */
export function formPayloadText(raw: Buffer): string {
  const body = raw.toString('latin1');
  let start = 0;
  while (start <= body.length) {
    let end = body.indexOf('&', start);
    if (end < 0) end = body.length;
    const eq = body.indexOf('=', start);
    const nameEnd = eq >= 0 && eq < end ? eq : end;
    const name = body.slice(start, nameEnd);
    if (isPayloadName(name)) {
      if (nameEnd === end) throw required();
      const value = body.slice(nameEnd + 1, end);
      // A byte outside ASCII is not a form body's: refused as a bad encoding.
      if (NOT_ASCII.test(value)) decodeFormComponent('%', FORM_PAYLOAD_FIELD);
      const text = decodeFormComponent(value, FORM_PAYLOAD_FIELD);
      if (text === '') throw required();
      return text;
    }
    start = end + 1;
  }
  throw required();
}
