import { renderToString } from 'preact-render-to-string';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { restoreSession, session, signedIn, signIn } from '../../console/src/api.ts';
import { App } from '../../console/src/app.tsx';
import { type Lang, lang } from '../../console/src/i18n.ts';
import { route } from '../../console/src/router.tsx';
import { SignIn } from '../../console/src/screens/sign-in.tsx';
import { homeFor, navFor, routeAllowed, showsQueues } from '../../console/src/shell-model.ts';
import { textOf } from './html.ts';

/* Operators and bot developers in the shell: sign-in kind, session role, nav and routes. */
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

const ok = (data: unknown) =>
  new Response(JSON.stringify({ code: 0, message: 'Success', data }), {
    status: 200,
    headers: { 'Content-Type': 'application/json' },
  });

/** The nav's links as `text -> href`. */
function navLinks(markup: string): string[] {
  const nav = /<nav aria-label="Main navigation"[^>]*>([\s\S]*?)<\/nav>/.exec(markup)?.[1] ?? '';
  return [...nav.matchAll(/<a[^>]*href="([^"]+)"[^>]*>([^<]*)<\/a>/g)].map((m) => `${m[2]} -> ${m[1]}`);
}

describe('shell model', () => {
  it('gives operators every screen plus Templates and Gallery, and bots only those two', () => {
    expect(navFor('operator').map((n) => n.to)).toEqual([
      '',
      'first-pipe',
      'connect',
      'bots',
      'directory',
      'pipes',
      'deliveries',
      'templates',
      'gallery',
    ]);
    expect(navFor('bot').map((n) => n.to)).toEqual(['templates', 'gallery']);
  });

  it('sends a bot session home to its templates; the overview is the operators’', () => {
    expect(homeFor('operator')).toBe('');
    expect(homeFor('bot')).toBe('templates');
  });

  it("lets a bot session open only the template and gallery routes, and its test sends' deliveries", () => {
    for (const p of ['templates', 'templates/:id', 'gallery', 'gallery/:id', 'deliveries/:msgId']) {
      expect(routeAllowed('bot', p)).toBe(true);
      expect(routeAllowed('operator', p)).toBe(true);
    }
    for (const p of [
      '',
      'bots',
      'bots/:id',
      'pipes',
      'deliveries',
      'directory',
      'first-pipe',
      'connect',
      'intimacy',
    ]) {
      expect(routeAllowed('bot', p)).toBe(false);
      expect(routeAllowed('operator', p)).toBe(true);
    }
    expect(showsQueues('bot')).toBe(false);
    expect(showsQueues('operator')).toBe(true);
  });
});

describe('the session', () => {
  it('reads the role and bot from Herald’s answer; an answer without role is an operator’s', () => {
    expect(signedIn({ csrf_token: 'c', idle_timeout_s: 1800 })).toEqual({
      state: 'signed-in',
      csrf: 'c',
      role: 'operator',
    });
    expect(
      signedIn({ csrf_token: 'c', idle_timeout_s: 1800, role: 'bot', bot: { id: '7', name: 'Alert Bot' } }),
    ).toEqual({ state: 'signed-in', csrf: 'c', role: 'bot', bot: { id: '7', name: 'Alert Bot' } });
    // An operator's answer naming a bot does not make it a bot session.
    expect(
      signedIn({ csrf_token: 'c', idle_timeout_s: 1800, role: 'operator', bot: { id: '7', name: 'x' } }),
    ).toEqual({ state: 'signed-in', csrf: 'c', role: 'operator' });
  });

  it('signs in with {token, kind} and keeps the bot the session is bound to', async () => {
    const fetch = vi.fn(async (_url: string, _init: RequestInit) =>
      ok({ csrf_token: 'k', idle_timeout_s: 1800, role: 'bot', bot: { id: '42', name: 'CI Bot' } }),
    );
    vi.stubGlobal('fetch', fetch);
    await signIn('bot-token-value', 'bot');
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe('/console/api/session');
    expect(init.method).toBe('POST');
    expect(JSON.parse(String(init.body))).toEqual({ token: 'bot-token-value', kind: 'bot' });
    expect(session.value).toEqual({
      state: 'signed-in',
      csrf: 'k',
      role: 'bot',
      bot: { id: '42', name: 'CI Bot' },
    });
  });

  it('operators sign in with kind operator by default', async () => {
    const fetch = vi.fn(async (_url: string, _init: RequestInit) =>
      ok({ csrf_token: 'k', idle_timeout_s: 1800, role: 'operator' }),
    );
    vi.stubGlobal('fetch', fetch);
    await signIn('admin');
    expect(JSON.parse(String(fetch.mock.calls[0]![1].body))).toEqual({ token: 'admin', kind: 'operator' });
    expect(session.value).toMatchObject({ role: 'operator' });
  });

  it('a restored bot session keeps its role and bot', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () =>
        ok({ csrf_token: 'k', idle_timeout_s: 1800, role: 'bot', bot: { id: '9', name: 'B' } }),
      ),
    );
    await restoreSession(async () => {});
    expect(session.value).toEqual({
      state: 'signed-in',
      csrf: 'k',
      role: 'bot',
      bot: { id: '9', name: 'B' },
    });
  });
});

describe('the sign-in form', () => {
  it('offers both kinds, operator first and chosen, with the operator token field', () => {
    const markup = renderToString(<SignIn />);
    const text = textOf(markup);
    expect(text).toContain('Operator (ADMIN_TOKEN)');
    expect(text).toContain('Bot developer (bot token)');
    expect(text).toContain('Operator token');
    const radios = [...markup.matchAll(/<input[^>]*type="radio"[^>]*>/g)].map((m) => m[0]);
    expect(radios).toHaveLength(2);
    expect(radios[0]).toContain('value="operator"');
    expect(radios[0]).toContain('checked');
    expect(radios[1]).not.toContain('checked');
  });

  it('is in Chinese too', () => {
    lang.value = 'zh-CN';
    const text = textOf(renderToString(<SignIn />));
    expect(text).toContain('运维人员（ADMIN_TOKEN）');
    expect(text).toContain('机器人开发者（机器人令牌）');
  });
});

describe('the shell', () => {
  it('shows an operator every screen, the queues and Templates and Gallery', () => {
    session.value = { state: 'signed-in', csrf: 'c', role: 'operator' };
    const links = navLinks(renderToString(<App />));
    expect(links).toEqual([
      'Overview -> /console/',
      'First pipe -> /console/first-pipe',
      'Connect a sender -> /console/connect',
      'Bots -> /console/bots',
      'Directory -> /console/directory',
      'Pipes -> /console/pipes',
      'Deliveries -> /console/deliveries',
      'Templates -> /console/templates',
      'Gallery -> /console/gallery',
      'Queues -> /console/queues/',
    ]);
  });

  it('shows a bot session only Templates and Gallery, and its bot’s name', () => {
    session.value = { state: 'signed-in', csrf: 'c', role: 'bot', bot: { id: '7', name: 'Alert Bot' } };
    const markup = renderToString(<App />);
    expect(navLinks(markup)).toEqual(['Templates -> /console/templates', 'Gallery -> /console/gallery']);
    expect(textOf(markup)).toContain('Bot: Alert Bot');
    expect(markup).toContain('<a class="brand" href="/console/templates">');
  });

  it('tells a bot session an operator page is not for it, instead of loading it', () => {
    session.value = { state: 'signed-in', csrf: 'c', role: 'bot', bot: { id: '7', name: 'Alert Bot' } };
    const before = route.value;
    route.value = { path: 'bots', query: new URLSearchParams() };
    try {
      const text = textOf(renderToString(<App />));
      expect(text).toContain(
        'This page is for operators; a bot developer has the templates and the gallery.',
      );
      expect(text).toContain('Go to templates');
      expect(text).not.toContain('Loading…');
      // The same page is an operator's to load.
      session.value = { state: 'signed-in', csrf: 'c', role: 'operator' };
      expect(textOf(renderToString(<App />))).toContain('Loading…');
    } finally {
      route.value = before;
    }
  });
});
