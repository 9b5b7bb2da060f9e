/*
 * A pipe's captured payloads as the console shows them (docs/pipes.md, "Captured payloads"):
 * the record GET /admin/api/pipe/captures answers, and the pure helpers that order them, size
 * them and lay out their bodies. No DOM, no API calls: unit-tested directly.
 */

/** One captured payload (src/domain/pipes/captures.ts, `Capture`). */
export interface Capture {
  /** The message's msg_id: the delivery the payload became. */
  readonly id: string;
  /** When the message was accepted, ISO 8601. */
  readonly received_at: string;
  readonly content_type: string | null;
  /** Bytes of the body as received (decompressed). */
  readonly size: number;
  /** Only the allow-listed request headers, lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body's text as received; null when it was too large to keep. */
  readonly body: string | null;
  readonly too_large: boolean;
}

/**
 * The server's default limits (CAPTURE_MAX_ITEMS, CAPTURE_MAX_BYTES, CAPTURE_TTL_S in
 * src/config/defaults.ts). The admin API does not answer the configured values, so the console
 * can only name the defaults.
 */
export const CAPTURE_DEFAULTS = { items: 20, maxBytes: 64 * 1024, ttlDays: 7 } as const;

/**
 * Longest body text the console lays out as JSON, in characters. CAPTURE_MAX_BYTES may be set
 * far above its 64 KiB default; past this a body is shown raw, so a huge payload cannot stall
 * the page while it is parsed and re-indented.
 */
export const PRETTY_MAX_CHARS = 256 * 1024;

/** Most characters of a body drawn on the page; the copy button still copies the whole body. */
export const SHOW_MAX_CHARS = 256 * 1024;

/** When the capture's message was accepted, in ms; null if the server's time does not parse. */
export function receivedMs(c: Pick<Capture, 'received_at'>): number | null {
  const ms = Date.parse(c.received_at);
  return Number.isNaN(ms) ? null : ms;
}

/** Newest first by received_at (the API answers that order; this keeps it if it ever does not). */
export function newestFirst(items: readonly Capture[]): Capture[] {
  return [...items].sort((a, b) => (receivedMs(b) ?? 0) - (receivedMs(a) ?? 0));
}

/** A byte count for people: `512 B`, `1.5 KB`, `64 KB`, `2.3 MB` (1 KB = 1024 bytes). */
export function formatBytes(bytes: number, locale = 'en-US'): string {
  const units = ['B', 'KB', 'MB', 'GB'] as const;
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  const n = new Intl.NumberFormat(locale, { maximumFractionDigits: digits }).format(value);
  return `${n} ${units[unit]}`;
}

/** The headers as rows, sorted by name (the API keeps only allow-listed ones). */
export function headerRows(headers: Readonly<Record<string, string>>): Array<[string, string]> {
  return Object.entries(headers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Headers that name the sender's event, in the order the summary line prefers them. */
const EVENT_HEADERS = [
  'x-github-event',
  'x-gitlab-event',
  'x-gitea-event',
  'x-event-key',
  'sentry-hook-resource',
] as const;

/** The sender's event name from its headers (`push`, `Merge Request Hook`…), or null. */
export function eventOf(headers: Readonly<Record<string, string>>): string | null {
  for (const name of EVENT_HEADERS) {
    const v = headers[name];
    if (v !== undefined && v !== '') return v;
  }
  return null;
}

/** Whether a Content-Type names JSON (`application/json`, `application/vnd.x+json`, with parameters). */
export function isJsonType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const essence = contentType.split(';')[0]!.trim().toLowerCase();
  return essence === 'application/json' || essence.endsWith('+json') || essence === 'text/json';
}

/**
 * Re-indents JSON text without parsing its values, so what is shown is what the sender sent:
 * numbers past 2^53 keep their digits, keys keep their order (JSON.parse would move integer-like
 * keys first) and strings keep their escapes. `text` must be valid JSON.
 */
export function indentJson(text: string, indent = '  '): string {
  let out = '';
  let depth = 0;
  const line = (): string => `\n${indent.repeat(depth)}`;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"') {
      // A string: copied as is up to its closing quote (a backslash escapes the next character).
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (ch === '{' || ch === '[') {
      const close = ch === '{' ? '}' : ']';
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j++;
      if (text[j] === close) {
        // An empty object or array stays on one line.
        out += ch + close;
        i = j;
      } else {
        depth++;
        out += ch + line();
      }
    } else if (ch === '}' || ch === ']') {
      depth--;
      out += line() + ch;
    } else if (ch === ',') {
      out += `,${line()}`;
    } else if (ch === ':') {
      out += ': ';
    } else if (ch !== ' ' && ch !== '\t' && ch !== '\n' && ch !== '\r') {
      out += ch;
    }
  }
  return out;
}

/** How a capture's body is drawn. */
export type BodyView =
  | { readonly kind: 'too_large' }
  | { readonly kind: 'empty' }
  | {
      readonly kind: 'json' | 'raw';
      /** The text to draw, at most `SHOW_MAX_CHARS` characters. */
      readonly text: string;
      /** Characters of the laid-out text left off the page (0: all shown). */
      readonly hidden: number;
      /** The body looked like JSON but was too long to lay out (shown raw). */
      readonly notPretty: boolean;
    };

/**
 * A capture's body for the page: JSON re-indented when it parses (and the content type says
 * JSON, or the body starts like an object or array), raw text otherwise; "too large" when the
 * server kept no text. Long text is cut at `showMax` characters.
 */
export function bodyView(
  c: Pick<Capture, 'body' | 'too_large' | 'content_type'>,
  prettyMax = PRETTY_MAX_CHARS,
  showMax = SHOW_MAX_CHARS,
): BodyView {
  if (c.too_large || c.body === null) return { kind: 'too_large' };
  const body = c.body;
  if (body === '') return { kind: 'empty' };
  const cut = (kind: 'json' | 'raw', text: string, notPretty = false): BodyView => ({
    kind,
    text: text.length > showMax ? text.slice(0, showMax) : text,
    hidden: Math.max(0, text.length - showMax),
    notPretty,
  });
  const trimmed = body.trimStart();
  const looksJson = isJsonType(c.content_type) || trimmed.startsWith('{') || trimmed.startsWith('[');
  if (!looksJson) return cut('raw', body);
  if (body.length > prettyMax) return cut('raw', body, true);
  try {
    JSON.parse(body);
  } catch {
    return cut('raw', body);
  }
  return cut('json', indentJson(body));
}
