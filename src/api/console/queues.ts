import type { Queue } from 'bullmq';
import type { Middleware } from 'koa';
import type { Deps } from '../../domain/deps.js';
import { HeraldError } from '../../errors/index.js';
import { adminAuthenticator } from '../auth.js';
import type { HeraldState } from '../state.js';
import { CONSOLE_PATH, contentSecurityPolicy, inlineScriptHashes } from './headers.js';

export const QUEUES_PATH = `${CONSOLE_PATH}/queues`;

/**
 * The console's policy, with two changes for bull-board's page: its inline scripts by hash (it has
 * none that run today: its config is a JSON data block), and `base-uri 'self'`, as the page
 * loads its files relative to a <base> element (without it, deep links such as
 * /console/queues/queue/<name> load nothing).
 */
export const boardPolicy = (html: string): string =>
  contentSecurityPolicy(inlineScriptHashes(html), { baseUri: "'self'" });

/**
 * bull-board over the pipe queue (every partition), behind the console's sign-in. Read-only: a job retried or
 * removed here would bypass the delivery records that Herald's replay keeps (the console's
 * Deliveries screen replays through the admin API), and bull-board's page cannot send our
 * X-CSRF-Token; its state-changing calls still need one (adminAuthenticator), and then meet
 * bull-board's own read-only refusal.
 */
export function queueBrowser(deps: Deps, queues: readonly Queue[]): Middleware<HeraldState> {
  let loading: Promise<Middleware<HeraldState>> | undefined;
  const authenticate = adminAuthenticator(deps);
  let page: { html: string; csp: string } | undefined;
  return async (ctx) => {
    try {
      await authenticate(ctx);
    } catch (err) {
      // A browser opening the page names text/html; bull-board's own calls ask for JSON or */*.
      const isPageLoad =
        (ctx.method === 'GET' || ctx.method === 'HEAD') && /\btext\/html\b/i.test(ctx.get('Accept'));
      if (err instanceof HeraldError && err.status === 401 && isPageLoad) {
        ctx.status = 302;
        ctx.redirect(`${CONSOLE_PATH}/`);
        return;
      }
      throw err;
    }
    // Not `next`: bull-board's own error handler wraps what it calls, and would turn our 404
    // into its 500.
    let unmatched = false;
    loading ??= boardOf(queues).catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    const board = await loading;
    await board(ctx, async () => {
      unmatched = true;
    });
    if (unmatched) throw new HeraldError('ROUTE_NOT_FOUND');
    // Its page is rendered from a template per request; the same text keeps the same hashes.
    if (typeof ctx.body === 'string' && ctx.response.is('html')) {
      if (page?.html !== ctx.body) page = { html: ctx.body, csp: boardPolicy(ctx.body) };
      ctx.set('Content-Security-Policy', page.csp);
    }
  };
}

/**
 * bull-board, loaded on the page's first request rather than with the web process: loading its
 * modules was a good part of a web process's start, and most processes never serve the page.
 */
async function boardOf(queues: readonly Queue[]): Promise<Middleware<HeraldState>> {
  const [{ createBullBoard }, { BullMQAdapter }, { KoaAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/koa'),
  ]);
  const adapter = new KoaAdapter();
  adapter.setBasePath(QUEUES_PATH);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: true })),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: 'Herald queues' } },
  });
  return adapter.registerPlugin() as unknown as Middleware<HeraldState>;
}
