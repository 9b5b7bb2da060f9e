import { ValidationError } from '../../../errors/index.js';
import type { PipeEventSource, PipeRecord, PipeRoutes } from '../../../store/index.js';
import { captureHeaders, type RequestHeaders } from '../captures.js';

/*
 * Routing by event (docs/pipes.md, "Routing by event"): one pipe URL takes all of a sender's
 * events, and the pipe's routes say which template renders each. The event is read from a
 * request header (X-GitHub-Event) or a body field (object_kind, status), per the pipe's
 * `event_source`; `template_id` is the default for events without a route of their own.
 *
 * The decision is made at the door, from the cached pipe (no store read): the job carries the
 * chosen template's id and the event, so the worker renders what the door chose even if the
 * routes change meanwhile, and pipemsg-status can tell which template a message got.
 */

/** Most routes a pipe may have. */
export const MAX_ROUTES = 50;
/** Longest event name a route may have, in characters. */
export const MAX_ROUTE_EVENT_LENGTH = 64;
/**
 * Longest event a message carries, in characters: a longer header or field value (no route can
 * name it) is cut to this for the record and the template.
 */
export const MAX_EVENT_LENGTH = 256;
/** Longest header name or body path of an event source. */
export const MAX_EVENT_SOURCE_LENGTH = 128;
/** Most segments of a body path (`data.issue_alert.title` has 3). */
export const MAX_BODY_PATH_SEGMENTS = 8;

/** Where the event is read, as the door uses it: a lower-case header name, or a body path. */
export type CachedEventSource = { readonly header: string } | { readonly path: readonly string[] };

/** A pipe's routing as the door holds it (in its CachedPipe). */
export interface PipeRouting {
  readonly source: CachedEventSource;
  /** Event -> template id; null: answered and not posted. */
  readonly routes: ReadonlyMap<string, string | null>;
  /** The pipe's template_id: what renders an event without a route. */
  readonly fallback: string | null;
}

/** Why an event was answered without a message. */
export type SkipReason =
  /** Its route says so (a `null` route, such as GitHub's `ping`). */
  | 'event_ignored'
  /** No route for it, and the pipe has no default template. */
  | 'no_template'
  /** The request named no event (the header or field missing), and there is no default template. */
  | 'no_event';

/** What the door does with a request of a routed pipe. */
export type RouteDecision =
  | { readonly kind: 'route'; readonly event: string | null; readonly template_id: string }
  | { readonly kind: 'skip'; readonly event: string | null; readonly reason: SkipReason };

/** A routed message as the door queues it: the chosen template, its event and the request's headers. */
export interface RoutedMessage {
  readonly event: string | null;
  readonly template_id: string;
  /** The allow-listed request headers (captures.ts CAPTURE_HEADERS), for the template's `_headers`. */
  readonly headers: Readonly<Record<string, string>>;
}

/** The routing of a stored pipe, as the door caches it; null for a pipe without event_source. */
export function routingOf(
  pipe: Pick<PipeRecord, 'event_source' | 'routes' | 'template_id'>,
): PipeRouting | null {
  const source = pipe.event_source;
  if (source === null) return null;
  return {
    source: 'header' in source ? { header: source.header.toLowerCase() } : { path: source.body.split('.') },
    routes: new Map(Object.entries(pipe.routes)),
    fallback: pipe.template_id,
  };
}

/** A scalar as an event name: strings as they are, numbers and booleans as text; else none. */
function eventText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

/** The event a request names, cut to MAX_EVENT_LENGTH; null when it names none (or an empty one). */
export function eventOf(source: CachedEventSource, headers: RequestHeaders, body: unknown): string | null {
  let found: string | null;
  if ('header' in source) {
    const value = headers[source.header];
    found = value === undefined ? null : typeof value === 'string' ? value : value.join(', ');
  } else {
    let at: unknown = body;
    for (const key of source.path) {
      if (at === null || typeof at !== 'object' || Array.isArray(at) || !Object.hasOwn(at, key)) {
        at = undefined;
        break;
      }
      at = (at as Record<string, unknown>)[key];
    }
    found = eventText(at);
  }
  if (found === null || found === '') return null;
  return found.length > MAX_EVENT_LENGTH ? found.slice(0, MAX_EVENT_LENGTH) : found;
}

/** Which template renders `event` on a pipe with `routing`, or why none does. */
export function decideRoute(routing: PipeRouting, event: string | null): RouteDecision {
  if (event !== null && routing.routes.has(event)) {
    const templateId = routing.routes.get(event) ?? null;
    return templateId === null
      ? { kind: 'skip', event, reason: 'event_ignored' }
      : { kind: 'route', event, template_id: templateId };
  }
  if (routing.fallback !== null) return { kind: 'route', event, template_id: routing.fallback };
  return { kind: 'skip', event, reason: event === null ? 'no_event' : 'no_template' };
}

/**
 * The door's routing step for a request to a routed pipe: the event, the decision and, for a
 * message, what its job carries. No I/O.
 */
export function routeRequest(
  routing: PipeRouting,
  headers: RequestHeaders,
  body: unknown,
): { readonly skip: RouteDecision & { kind: 'skip' } } | { readonly message: RoutedMessage } {
  const decision = decideRoute(routing, eventOf(routing.source, headers, body));
  if (decision.kind === 'skip') return { skip: decision };
  return {
    message: { event: decision.event, template_id: decision.template_id, headers: captureHeaders(headers) },
  };
}

/** The answer data of an event answered without a message (send-pipemsg's 200). */
export interface SkippedEvent {
  readonly skipped: true;
  readonly reason: SkipReason;
  readonly event: string | null;
}

export const skippedAnswer = (d: RouteDecision & { kind: 'skip' }): SkippedEvent => ({
  skipped: true,
  reason: d.reason,
  event: d.event,
});

/**
 * What the console's test message of a routed pipe renders (send-test.ts): the default template
 * with no event, else the first route to a template, with the header a sender would have named
 * its event in. Null when the pipe has nothing to render (no valid pipe gets there).
 */
export function testRoute(
  pipe: Pick<PipeRecord, 'event_source' | 'routes' | 'template_id'>,
): RoutedMessage | null {
  const source = pipe.event_source;
  if (source === null) return null;
  let event: string | null = null;
  let templateId = pipe.template_id;
  if (templateId === null) {
    const first = Object.entries(pipe.routes).find(([, t]) => t !== null);
    if (first === undefined) return null;
    [event, templateId] = first as [string, string];
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (event !== null && 'header' in source) headers[source.header.toLowerCase()] = event;
  return { event, template_id: templateId, headers: captureHeaders(headers) };
}

// ---- What the template sees ----

/** The template variable holding the event name (null: the request named none). */
export const EVENT_VARIABLE = '_event';
/** The template variable holding the allow-listed request headers, by lower-case name. */
export const HEADERS_VARIABLE = '_headers';

/**
 * The top-level variables a message's template gets beside `data`: `_event` and `_headers` for a
 * message of a routed pipe (its job carries `event`), none for any other, whose templates render
 * exactly as before. Underscored like Twig's own `_self` and `_context`, so they cannot be taken
 * for a sender's field, and PHP Twig (strict_variables off, as on the platform) reads them as
 * null where they are not given, so a template using them still renders there.
 */
export function requestVariables(job: {
  readonly event?: string | null | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
}): Readonly<Record<string, unknown>> | undefined {
  if (job.event === undefined) return undefined;
  return { [EVENT_VARIABLE]: job.event, [HEADERS_VARIABLE]: job.headers ?? {} };
}

// ---- Checking an operator's routing settings (pipe create and update) ----

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/**
 * Headers that carry credentials: never an event source, whose value would be kept with the
 * message (its record, pipemsg-status, the template's `_event`).
 */
const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-api-key',
  'x-hub-signature',
  'x-hub-signature-256',
  'x-gitlab-token',
  'x-gitea-signature',
  'x-gogs-signature',
  'webhook-signature',
  'sentry-hook-signature',
]);
const ROUTE_EVENT = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const BODY_PATH_SEGMENT = /^[^.\s]+$/;

const invalid = (field: string, zh: string, en: string) =>
  new ValidationError(field, { 'zh-CN': zh, 'en-US': en });

/**
 * An event source may not be the header the pipe's senders sign in (hmac-sha256 names its own):
 * its value would be kept with the message. `field` names what the caller is changing.
 */
export function checkEventSourceNotSignature(
  source: PipeEventSource | null,
  signatureHeader: string | null | undefined,
  field: 'event_source' | 'signature',
): void {
  if (!source || !('header' in source) || !signatureHeader) return;
  if (source.header === signatureHeader.toLowerCase()) {
    throw invalid(
      field,
      '事件来源的头不能是签名所在的头',
      'the event source header must not be the signature header',
    );
  }
}

/**
 * An event source as stored: a header name (lower case; an HTTP token of at most
 * MAX_EVENT_SOURCE_LENGTH characters) or a body path (dot-separated, at most
 * MAX_BODY_PATH_SEGMENTS non-empty segments). 400 naming `event_source` otherwise.
 */
export function checkEventSource(source: PipeEventSource): PipeEventSource {
  if ('header' in source) {
    const name = source.header;
    if (name.length === 0 || name.length > MAX_EVENT_SOURCE_LENGTH || !HEADER_NAME.test(name)) {
      throw invalid(
        'event_source',
        `header 必须是 1 到 ${MAX_EVENT_SOURCE_LENGTH} 个字符的 HTTP 头名称`,
        `header must be an HTTP header name of 1 to ${MAX_EVENT_SOURCE_LENGTH} characters`,
      );
    }
    if (CREDENTIAL_HEADERS.has(name.toLowerCase())) {
      throw invalid(
        'event_source',
        'header 不能是携带凭据的头',
        'header must not be one that carries credentials',
      );
    }
    return { header: name.toLowerCase() };
  }
  const path = source.body;
  const segments = path.split('.');
  if (
    path.length === 0 ||
    path.length > MAX_EVENT_SOURCE_LENGTH ||
    segments.length > MAX_BODY_PATH_SEGMENTS ||
    !segments.every((s) => BODY_PATH_SEGMENT.test(s))
  ) {
    throw invalid(
      'event_source',
      `body 必须是以点分隔的字段路径（最多 ${MAX_BODY_PATH_SEGMENTS} 段，${MAX_EVENT_SOURCE_LENGTH} 个字符，不含空白）`,
      `body must be a dot-separated field path (at most ${MAX_BODY_PATH_SEGMENTS} segments and ${MAX_EVENT_SOURCE_LENGTH} characters, no spaces)`,
    );
  }
  return { body: path };
}

/**
 * Routes as stored: at most MAX_ROUTES, each event 1 to MAX_ROUTE_EVENT_LENGTH visible ASCII
 * characters (inner spaces allowed: GitLab's `Push Hook`). Answers the template ids they name,
 * for the caller to check they are the bot's. 400 naming `routes` otherwise.
 */
export function checkRoutes(routes: PipeRoutes): string[] {
  const events = Object.keys(routes);
  if (events.length > MAX_ROUTES) {
    throw invalid('routes', `最多 ${MAX_ROUTES} 条`, `must have at most ${MAX_ROUTES} events`);
  }
  for (const event of events) {
    if (event.length > MAX_ROUTE_EVENT_LENGTH || !ROUTE_EVENT.test(event)) {
      throw invalid(
        'routes',
        `事件名必须是 1 到 ${MAX_ROUTE_EVENT_LENGTH} 个可见 ASCII 字符（中间可有空格）`,
        `event names must be 1 to ${MAX_ROUTE_EVENT_LENGTH} visible ASCII characters (inner spaces allowed)`,
      );
    }
  }
  return [...new Set(Object.values(routes).filter((t): t is string => t !== null))];
}

/**
 * The routing settings a pipe ends up with must hang together: routes need an event source to
 * read the event from, and an event source needs something to render (a default template or a
 * route to one). 400 naming the field to set.
 */
export function checkRoutingShape(pipe: Pick<PipeRecord, 'event_source' | 'routes' | 'template_id'>): void {
  const routed = Object.values(pipe.routes).some((t) => t !== null);
  if (pipe.event_source === null && Object.keys(pipe.routes).length > 0) {
    throw invalid('event_source', '设置了 routes 时为必填项', 'is required when routes are set');
  }
  if (pipe.event_source !== null && pipe.template_id === null && !routed) {
    throw invalid(
      'routes',
      '设置了 event_source 时，至少需要一条指向模板的路由或一个默认模板（template_id）',
      'needs at least one event with a template, or a default template_id, when event_source is set',
    );
  }
}
