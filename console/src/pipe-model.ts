import type { PipeGrouping } from './grouping-form.ts';

/*
 * Records the pipe screens read from the admin API, and the pure helpers around a pipe's URL
 * (the curl example a sender copies). No DOM, no API calls: unit-tested directly.
 */

export interface RateLimit {
  readonly capacity: number;
  readonly per_second: number;
}

/** A pipe's `overflow` option: split (the default), truncate or fail. */
export type PipeOverflow = 'split' | 'truncate' | 'fail';
export const PIPE_OVERFLOWS: readonly PipeOverflow[] = ['split', 'truncate', 'fail'];

export interface Pipe {
  readonly id: string;
  readonly bot_id: string;
  readonly title: string;
  readonly channel_id: string;
  readonly guild_id: string;
  readonly template_id: string | null;
  readonly enabled: boolean;
  readonly rate_limit: RateLimit | null;
  readonly rate_limit_in_force: RateLimit;
  /** Whether the pipe keeps its latest accepted payloads (docs/pipes.md, "Captured payloads"). */
  readonly capture: boolean;
  /** What a message over the platform's limits becomes (docs/pipes.md); absent from older servers. */
  readonly overflow?: PipeOverflow;
  /** How senders sign (docs/pipes.md, "Verified senders"); never the secret. Absent before signatures. */
  readonly signature?: PipeSignature;
  /** Where the event is read, and its routes (docs/pipes.md, "Routing by event"); null: not routed. */
  readonly event_source?: { readonly header?: string; readonly body?: string } | null;
  /** Event -> template id; null: answered, not posted. */
  readonly routes?: Readonly<Record<string, string | null>> | null;
  /** How the pipe groups its messages (docs/pipes.md, "Grouping"); null: not grouped. */
  readonly grouping?: PipeGrouping | null;
  /** The preset the pipe was made with (github, gitlab, ...), or null. */
  readonly preset?: string | null;
  readonly created_at: number;
  readonly updated_at: number;
}

export interface PipeSignature {
  readonly scheme: string;
  readonly header: string | null;
  readonly encoding: string | null;
  readonly prefix: string | null;
  readonly secrets: readonly { readonly created_at: number; readonly expires_at: number | null }[];
}

/** What pipe/create and pipe/rotate-token answer besides the pipe: shown once. */
export interface IssuedToken {
  readonly access_token: string;
  readonly url: string;
}

export interface Bot {
  readonly id: string;
  readonly name: string;
  readonly user_id: string;
  readonly enabled: boolean;
}

export interface Template {
  readonly id: string;
  readonly title: string;
  readonly msgtype: number;
  readonly test_data: string;
  readonly banned?: boolean;
}

export interface Channel {
  readonly id: string;
  readonly name: string;
  readonly guild_id: string;
  readonly type: number;
  readonly is_category: boolean;
}

export interface Guild {
  readonly id: string;
  readonly name: string;
  readonly user_id: string;
  readonly channels?: readonly Channel[];
}

/** Permission bits the console sets (docs/directory.md). */
export const PERMISSION = { VIEW_CHANNELS: 2048, SEND_MESSAGES: 4096 } as const;

/** Bounds of a pipe's own rate limit (MAX_PIPE_RATE, MIN_PIPE_REFILL in admin-pipes.ts). */
export const PIPE_RATE = { maxCapacity: 1_000_000, minPerSecond: 0.01, maxPerSecond: 1_000_000 } as const;

/** A channel a pipe can post into: text, not a category (isTextChannel on the server). */
export const isTextChannel = (c: Channel): boolean => c.type === 1 && !c.is_category;

/** Quotes a text for a POSIX shell: single quotes, with each `'` closed, escaped and reopened. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The body a sender posts: a plain pipe takes `{"content": ...}`; a template pipe takes the
 * template's input, so its test_data (the sample the template was written for) is the example.
 */
export function sampleBody(template: Pick<Template, 'test_data'> | null, text = 'hello'): string {
  if (template === null) return JSON.stringify({ content: text });
  const data = template.test_data.trim();
  return data === '' ? '{}' : data;
}

/** The curl command that posts `body` through a pipe URL. */
export function curlExample(url: string, body: string): string {
  return `curl -X POST ${shellQuote(url)} -H 'Content-Type: application/json' -d ${shellQuote(body)}`;
}

/** Rate settings as the form holds them; `custom: false` is the configured default. */
export interface RateForm {
  readonly custom: boolean;
  readonly capacity: string;
  readonly per_second: string;
}

export const rateForm = (p: Pick<Pipe, 'rate_limit' | 'rate_limit_in_force'>): RateForm => ({
  custom: p.rate_limit !== null,
  capacity: String((p.rate_limit ?? p.rate_limit_in_force).capacity),
  per_second: String((p.rate_limit ?? p.rate_limit_in_force).per_second),
});

/**
 * The rate_limit field of pipe/update for a form: null for the default, the pair when both are
 * in range, or which field is wrong (checked here so the error shows beside the field at once).
 */
export function rateFromForm(
  f: RateForm,
): { ok: true; rate_limit: RateLimit | null } | { ok: false; field: 'capacity' | 'per_second' } {
  if (!f.custom) return { ok: true, rate_limit: null };
  const capacity = Number(f.capacity);
  const perSecond = Number(f.per_second);
  if (!/^\d+$/.test(f.capacity.trim()) || capacity < 1 || capacity > PIPE_RATE.maxCapacity) {
    return { ok: false, field: 'capacity' };
  }
  if (
    f.per_second.trim() === '' ||
    !Number.isFinite(perSecond) ||
    perSecond < PIPE_RATE.minPerSecond ||
    perSecond > PIPE_RATE.maxPerSecond
  ) {
    return { ok: false, field: 'per_second' };
  }
  return { ok: true, rate_limit: { capacity, per_second: perSecond } };
}
