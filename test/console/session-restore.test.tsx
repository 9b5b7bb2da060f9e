import { renderToString } from 'preact-render-to-string';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, restoreSession, session } from '../../console/src/api.ts';
import { App } from '../../console/src/app.tsx';
import { type Lang, lang } from '../../console/src/i18n.ts';
import { signInMessage } from '../../console/src/screens/sign-in.tsx';
import { textOf } from './html.ts';

/** Restoring the session on load, when Herald cannot reach Redis (console/src/api.ts, app.tsx). */
let saved: Lang;
beforeEach(() => {
  saved = lang.value;
  lang.value = 'en-US';
  session.value = { state: 'unknown' };
});
afterEach(() => {
  lang.value = saved;
  session.value = { state: 'unknown' };
  vi.unstubAllGlobals();
});

const envelope = (status: number, code: number, message: string, data: unknown = null) =>
  new Response(JSON.stringify({ code, message, data }), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
const REDIS_DOWN = 'Service temporarily unavailable, retry later (error id e1)';

/** fetch answering each call with the next of `answers` (an Error: the network failed). */
function stubFetch(answers: Array<Response | Error>) {
  const fetch = vi.fn(async () => {
    const next = answers.shift();
    if (next === undefined) throw new Error('no more answers');
    if (next instanceof Error) throw next;
    return next;
  });
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

describe('restoreSession', () => {
  it('on a 503 or a network failure shows the services as unreachable and tries again, until it works', async () => {
    const fetch = stubFetch([
      envelope(503, 50300, REDIS_DOWN),
      new TypeError('Failed to fetch'),
      envelope(200, 0, 'Success', { csrf_token: 'c'.repeat(43), idle_timeout_s: 1800 }),
    ]);
    const seen: Array<{ ms: number; state: string }> = [];
    await restoreSession(async (ms) => {
      seen.push({ ms, state: session.value.state });
    });
    expect(seen).toEqual([
      { ms: 5000, state: 'unavailable' },
      { ms: 5000, state: 'unavailable' },
    ]);
    expect(fetch).toHaveBeenCalledTimes(3);
    expect(session.value).toEqual({ state: 'signed-in', csrf: 'c'.repeat(43), role: 'operator' });
  });

  it('a 401 is signed out at once, without retrying', async () => {
    stubFetch([envelope(401, 40100, 'Authentication required')]);
    const wait = vi.fn(async () => {});
    await restoreSession(wait);
    expect(wait).not.toHaveBeenCalled();
    expect(session.value).toEqual({ state: 'signed-out' });
  });
});

describe('the app while the services are unreachable', () => {
  it('says so and that it is retrying, instead of asking to sign in', () => {
    session.value = { state: 'unavailable', detail: REDIS_DOWN };
    const text = textOf(renderToString(<App />));
    expect(text).toContain('Herald cannot reach its services (Redis); retrying…');
    expect(text).toContain(REDIS_DOWN);
    expect(text).not.toContain('Operator token');
  });
});

describe('the sign-in form', () => {
  it("shows a 503's own message, not that the token is wrong", () => {
    const message = signInMessage(new ApiError(503, 50300, REDIS_DOWN));
    expect(message instanceof Error ? message.message : message).toBe(REDIS_DOWN);
    expect((signInMessage(new ApiError(401, 40101, 'Invalid token')) as Error).message).toBe(
      'That token is not right.',
    );
    expect((signInMessage(new ApiError(429, 42901, 'x', null, 60)) as Error).message).toBe(
      'Too many failed tries: try again in 60 s.',
    );
  });
});
