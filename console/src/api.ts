import { signal } from '@preact/signals';
import { lang } from './i18n.ts';

/** An answer outside code 0: the envelope's code and message, and the HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly data: unknown = null,
    /** Seconds from a 429's Retry-After header. */
    readonly retryAfterS?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Who signed in: the operators (ADMIN_TOKEN), or a bot's developer with the bot's token. */
export type Role = 'operator' | 'bot';
/** How the sign-in form names the token it sends (`kind` in POST /console/api/session). */
export type SignInKind = Role;

/** A signed-in session: a bot session also names its bot, the only one it may see. */
export interface SignedIn {
  state: 'signed-in';
  csrf: string;
  role: Role;
  bot?: { id: string; name: string };
}

/**
 * The session as the app knows it. The CSRF token lives only in memory: a reload asks the server
 * for it again with the HttpOnly cookie, which script cannot read. `unavailable`: Herald could
 * not say (it cannot reach Redis, where sessions live, or cannot be reached itself); `detail` is
 * what it answered.
 */
export const session = signal<
  { state: 'unknown' | 'signed-out' } | SignedIn | { state: 'unavailable'; detail: string }
>({
  state: 'unknown',
});

type Query = Record<string, string | number | boolean | null | undefined>;

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  }
  const qs = params.toString();
  return qs === '' ? path : `${path}?${qs}`;
}

async function call<T>(method: string, path: string, body?: unknown, query?: Query): Promise<T> {
  const headers: Record<string, string> = { 'Accept-Language': lang.value, Accept: 'application/json' };
  const s = session.value;
  if (method !== 'GET' && s.state === 'signed-in') headers['X-CSRF-Token'] = s.csrf;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(withQuery(path, query), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, -1, lang.value === 'zh-CN' ? '无法连接到服务器' : 'Cannot reach the server');
  }
  let envelope: { code?: number; message?: string; data?: unknown } = {};
  try {
    envelope = await res.json();
  } catch {
    // A non-JSON answer (a proxy's error page): reported by status below.
  }
  if (res.ok && envelope.code === 0) return envelope.data as T;
  if (res.status === 401 && path !== SESSION_PATH) session.value = { state: 'signed-out' };
  const retry = Number(res.headers.get('Retry-After'));
  throw new ApiError(
    res.status,
    envelope.code ?? -1,
    envelope.message ?? res.statusText,
    envelope.data,
    Number.isFinite(retry) && retry > 0 ? retry : undefined,
  );
}

export const SESSION_PATH = '/console/api/session';

export const api = {
  get: <T>(path: string, query?: Query) => call<T>('GET', path, undefined, query),
  post: <T>(path: string, body: unknown = {}) => call<T>('POST', path, body),
  del: <T>(path: string) => call<T>('DELETE', path),
};

export interface SessionInfo {
  csrf_token: string;
  idle_timeout_s: number;
  role?: Role;
  bot?: { id: string; name: string } | null;
}

/**
 * The app's session from Herald's answer. An answer without `role` (a server from before bot
 * sign-in) is an operator's; a bot session without its bot named is taken as it says, with no bot.
 */
export function signedIn(info: SessionInfo): SignedIn {
  const role: Role = info.role === 'bot' ? 'bot' : 'operator';
  const s: SignedIn = { state: 'signed-in', csrf: info.csrf_token, role };
  if (role === 'bot' && info.bot) s.bot = { id: info.bot.id, name: info.bot.name };
  return s;
}

/** How long the app waits before asking again for a session Herald could not read, in ms. */
export const RESTORE_RETRY_MS = 5_000;

/**
 * Whether an error means Herald or what it needs is out of reach, not that the session is gone:
 * a 503 (Herald cannot reach Redis), a proxy's 502 or 504, or no answer at all.
 */
export const isUnavailable = (err: unknown): err is ApiError =>
  err instanceof ApiError && [0, 502, 503, 504].includes(err.status);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** How many times in all askWhileUnavailable makes a call. */
export const UNAVAILABLE_TRIES = 4;
/** The first wait before asking again, in ms, doubled after each try (a Retry-After wins). */
export const UNAVAILABLE_FIRST_WAIT_MS = 1_000;
/** The longest wait between two tries, in ms, whatever a Retry-After says. */
export const UNAVAILABLE_MAX_WAIT_MS = 10_000;

/**
 * How long to wait before asking again after `err`, when `tries` tries failed so before it: null
 * unless Herald was out of reach (isUnavailable).
 */
export function unavailableWaitMs(err: unknown, tries: number): number | null {
  if (!isUnavailable(err)) return null;
  const ms = err.retryAfterS !== undefined ? err.retryAfterS * 1000 : UNAVAILABLE_FIRST_WAIT_MS * 2 ** tries;
  return Math.min(ms, UNAVAILABLE_MAX_WAIT_MS);
}

/**
 * `call`, asked again while Herald is out of reach (isUnavailable), up to UNAVAILABLE_TRIES in
 * all; then its last error. Only for calls that are safe to ask again, such as a replay batch,
 * which goes on from where the last call stopped.
 */
export async function askWhileUnavailable<T>(
  call: () => Promise<T>,
  wait = sleep,
  /** Asked before each try after the first: false ends it with the last error (a Stop button). */
  goOn: () => boolean = () => true,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const ms = attempt < UNAVAILABLE_TRIES ? unavailableWaitMs(err, attempt - 1) : null;
      if (ms === null) throw err;
      await wait(ms);
      if (!goOn()) throw err;
    }
  }
}

/**
 * Asks Herald for the session the cookie holds. While Herald cannot tell (isUnavailable), the
 * session is `unavailable` and it asks again every RESTORE_RETRY_MS: the sign-in form would be
 * wrong there, as the session may well be alive.
 */
export async function restoreSession(wait: (ms: number) => Promise<void> = sleep): Promise<void> {
  for (;;) {
    try {
      const info = await api.get<SessionInfo>(SESSION_PATH);
      session.value = signedIn(info);
      return;
    } catch (err) {
      if (!isUnavailable(err)) {
        session.value = { state: 'signed-out' };
        return;
      }
      session.value = { state: 'unavailable', detail: err.message };
      await wait(RESTORE_RETRY_MS);
    }
  }
}

/** Signs in with the operators' token or, `kind: 'bot'`, a bot's token (a session bound to that bot). */
export async function signIn(token: string, kind: SignInKind = 'operator'): Promise<void> {
  const info = await api.post<SessionInfo>(SESSION_PATH, { token, kind });
  session.value = signedIn(info);
}

export async function signOut(): Promise<void> {
  try {
    await api.del(SESSION_PATH);
  } finally {
    session.value = { state: 'signed-out' };
  }
}
