import { REASON } from '../../domain/deliveries/reasons.js';
import { DeliveryError } from '../../errors/index.js';
import { HttpTimeoutError, type PostResult, postJson } from './http-post.js';
import type { OutgoingMessage, SinkResult } from './types.js';

/** Wait after a 429 that names no reset time, in ms. */
export const RELAY_DEFAULT_RATE_LIMIT_WAIT_MS = 1_000;
/** Longest upstream error text kept on the delivery record, in characters. */
const MAX_UPSTREAM_MESSAGE = 500;

export interface RelayTarget {
  /** Base URL without a trailing slash, e.g. https://www.example.com */
  readonly url: string;
  /** Secret; sent as `Authorization: Bot <token>`, never logged or recorded. */
  readonly token: string;
}

/** Settings of the relay sink, from the process's config. */
export interface RelayOptions {
  /** How long one request may take, headers and body, before it counts as a timeout, in ms. */
  readonly timeoutMs: number;
}

/**
 * The wait a 429 asks for: X-Rate-Limit-Reset (seconds), else Retry-After (seconds or a date).
 * Not capped here: a message tried again before the relay's reset only meets another 429. A
 * wait that would end past RELAY_RATE_LIMIT_PATIENCE_MS fails the message instead (the worker).
 */
export function rateLimitWaitMs(headers: PostResult['headers'], now: number): number {
  const clamp = (ms: number) => Math.max(0, Math.ceil(ms));
  const header = (name: string): string | null => {
    const v = headers[name];
    return typeof v === 'string' ? v : null;
  };
  const rawReset = header('x-rate-limit-reset');
  const reset = Number(rawReset);
  if (rawReset !== null && rawReset !== '' && Number.isFinite(reset)) return clamp(reset * 1000);
  const retryAfter = header('retry-after');
  if (retryAfter !== null) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return clamp(seconds * 1000);
    const at = Date.parse(retryAfter);
    if (Number.isFinite(at)) return clamp(at - now);
  }
  return RELAY_DEFAULT_RATE_LIMIT_WAIT_MS;
}

/**
 * POSTs the message to `${url}/api/v3/message/create` as the platform's own API takes it, with
 * nonce = msg_id so that a retried or re-run message is recognisable upstream.
 * 2xx: sent (upstream msg id kept); 429: rate_limited (wait, no attempt used);
 * 5xx, no answer within `options.timeoutMs` (RELAY_TIMEOUT_MS), connection error:
 * DeliveryError; any other answer: DeliveryError.
 */
export async function relayMessage(
  target: RelayTarget,
  m: OutgoingMessage,
  options: RelayOptions,
): Promise<SinkResult> {
  const body: Record<string, unknown> = {
    type: m.type,
    target_id: m.channel_id,
    content: m.content,
    nonce: m.msg_id,
  };
  if (m.quote) body.quote = m.quote;
  if (m.temp_target_id) body.temp_target_id = m.temp_target_id;
  return postToRelay(target, '/api/v3/message/create', body, options);
}

/**
 * Edits the relay's message `upstreamMsgId` to `m`'s content (`POST /api/v3/message/update`,
 * update mode of a grouped pipe: workers/delivery/grouping.ts). Answers as relayMessage does; the
 * platform's answer carries no data, so `upstream_msg_id` is the edited message's. A refusal
 * (the message is gone, or cannot be edited) is UPSTREAM_REJECTED, as for a create.
 */
export async function relayEdit(
  target: RelayTarget,
  upstreamMsgId: string,
  m: OutgoingMessage,
  options: RelayOptions,
): Promise<SinkResult> {
  const body: Record<string, unknown> = { msg_id: upstreamMsgId, content: m.content };
  if (m.quote) body.quote = m.quote;
  if (m.temp_target_id) body.temp_target_id = m.temp_target_id;
  const r = await postToRelay(target, '/api/v3/message/update', body, options);
  return r.kind === 'sent' ? { kind: 'sent', upstream_msg_id: upstreamMsgId } : r;
}

async function postToRelay(
  target: RelayTarget,
  path: string,
  body: Record<string, unknown>,
  options: RelayOptions,
): Promise<SinkResult> {
  const { timeoutMs } = options;
  let res: PostResult;
  try {
    res = await postJson(
      `${target.url}${path}`,
      { Authorization: `Bot ${target.token}` },
      JSON.stringify(body),
      timeoutMs,
    );
  } catch (err) {
    if (err instanceof HttpTimeoutError) {
      throw new DeliveryError(REASON.UPSTREAM_TIMEOUT, {
        detail: { 'zh-CN': `${timeoutMs} 毫秒内没有应答`, 'en-US': `no answer within ${timeoutMs} ms` },
      });
    }
    // The record names the system error's code only: its message names the relay's address,
    // and pipemsg-status shows the record to pipe senders. The worker logs the cause.
    const code = (err as NodeJS.ErrnoException).code;
    throw new DeliveryError(
      REASON.UPSTREAM_UNREACHABLE,
      {
        detail:
          typeof code === 'string'
            ? { 'zh-CN': `连接失败（${code}）`, 'en-US': `connection failed (${code})` }
            : { 'zh-CN': '连接失败（网络错误）', 'en-US': 'connection failed (network error)' },
      },
      { cause: err },
    );
  }
  let envelope: { code?: unknown; message?: unknown; data?: { msg_id?: unknown } | null } = {};
  try {
    const parsed: unknown = JSON.parse(res.text);
    // Only an object is an envelope (`null`, a number or a list would break the reads below).
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) envelope = parsed;
  } catch {
    // Not JSON: judged by the status alone.
  }
  const upstreamMessage = String(envelope.message ?? res.text).slice(0, MAX_UPSTREAM_MESSAGE);
  if (res.status === 429) return { kind: 'rate_limited', waitMs: rateLimitWaitMs(res.headers, Date.now()) };
  if (res.status >= 500) {
    throw new DeliveryError(REASON.UPSTREAM_UNAVAILABLE, {
      status: res.status,
      detail: `HTTP ${res.status}: ${upstreamMessage}`,
    });
  }
  const code = typeof envelope.code === 'number' ? envelope.code : 0;
  if (res.status >= 200 && res.status < 300 && code === 0) {
    const id = envelope.data?.msg_id;
    return {
      kind: 'sent',
      upstream_msg_id: typeof id === 'string' || typeof id === 'number' ? String(id) : null,
    };
  }
  throw new DeliveryError(
    REASON.UPSTREAM_REJECTED,
    { status: res.status, upstream_code: code, detail: upstreamMessage },
    { data: { status: res.status, upstream_code: code, upstream_message: upstreamMessage } },
  );
}

/** Connection errors raised before a request could be written: the relay never saw it. */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
]);
/** A gateway's 5xx: the relay behind it may have taken the message. */
const GATEWAY_STATUSES: ReadonlySet<number> = new Set([502, 504]);

/**
 * What a failed relay request says about the message (DELIVERY_IN_DOUBT): `refused`, the relay
 * answered that it did not take it (a 4xx, a 500 or 503) or was never reached; `maybe`, it may
 * have (no answer in time, a connection that broke once open, a gateway's 502 or 504); null, not
 * a relay failure.
 */
export function relayVerdict(err: unknown): 'refused' | 'maybe' | null {
  if (!(err instanceof DeliveryError)) return null;
  switch (err.reason) {
    case REASON.UPSTREAM_TIMEOUT:
      return 'maybe';
    case REASON.UPSTREAM_UNREACHABLE: {
      const code = (err.cause as NodeJS.ErrnoException | undefined)?.code;
      return typeof code === 'string' && NOT_SENT_CODES.has(code) ? 'refused' : 'maybe';
    }
    case REASON.UPSTREAM_UNAVAILABLE:
      return GATEWAY_STATUSES.has(Number(err.params.status)) ? 'maybe' : 'refused';
    case REASON.UPSTREAM_REJECTED:
    case REASON.RELAY_NOT_CONFIGURED:
      return 'refused';
    default:
      return null;
  }
}
