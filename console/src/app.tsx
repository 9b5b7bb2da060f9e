import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { restoreSession, session, signOut } from './api.ts';
import { lang, translator } from './i18n.ts';
import { Link, match, route } from './router.tsx';
import { SignIn } from './screens/sign-in.tsx';
import { ErrorNote, Loading, Notice } from './ui/components.tsx';
import { LangSwitch } from './ui/lang-switch.tsx';

const t = translator({
  'zh-CN': {
    skip: '跳到正文',
    overview: '概览',
    firstPipe: '创建第一个管道',
    bots: '机器人',
    directory: '服务器与频道',
    pipes: '管道',
    deliveries: '投递',
    queues: '队列',
    signOut: '退出登录',
    notFound: '没有这个页面。',
    nav: '主导航',
    unavailable: 'Herald 无法连接它所依赖的服务（Redis），正在重试…',
  },
  'en-US': {
    skip: 'Skip to content',
    overview: 'Overview',
    firstPipe: 'First pipe',
    bots: 'Bots',
    directory: 'Directory',
    pipes: 'Pipes',
    deliveries: 'Deliveries',
    queues: 'Queues',
    signOut: 'Sign out',
    notFound: 'There is no such page.',
    nav: 'Main navigation',
    unavailable: 'Herald cannot reach its services (Redis); retrying…',
  },
});

type Screen = ComponentType<{ params: Record<string, string> }>;
type Loader = () => Promise<{ default: Screen }>;

/** Each screen is its own chunk, loaded when its route is first opened. */
const ROUTES: readonly { pattern: string; load: Loader }[] = [
  { pattern: '', load: () => import('./screens/overview.tsx') },
  { pattern: 'first-pipe', load: () => import('./screens/first-pipe.tsx') },
  { pattern: 'bots', load: () => import('./screens/bots.tsx') },
  { pattern: 'bots/:id', load: () => import('./screens/bot.tsx') },
  { pattern: 'intimacy', load: () => import('./screens/intimacy.tsx') },
  { pattern: 'directory', load: () => import('./screens/directory.tsx') },
  { pattern: 'directory/:guildId', load: () => import('./screens/guild.tsx') },
  { pattern: 'pipes', load: () => import('./screens/pipes.tsx') },
  { pattern: 'pipes/:id', load: () => import('./screens/pipe.tsx') },
  { pattern: 'deliveries', load: () => import('./screens/deliveries.tsx') },
  { pattern: 'deliveries/:msgId', load: () => import('./screens/delivery.tsx') },
  // The template studio; `new` first, as `templates/:id` would also match it.
  { pattern: 'templates/new', load: () => import('./screens/template.tsx') },
  { pattern: 'templates/:id', load: () => import('./screens/template.tsx') },
];

const NAV = [
  { to: '', key: 'overview' },
  { to: 'first-pipe', key: 'firstPipe' },
  { to: 'bots', key: 'bots' },
  { to: 'directory', key: 'directory' },
  { to: 'pipes', key: 'pipes' },
  { to: 'deliveries', key: 'deliveries' },
] as const;

const loaded = new Map<string, Screen>();

function RouteView() {
  const { path } = route.value;
  const hit = ROUTES.map((r) => ({ r, params: match(r.pattern, path) })).find((x) => x.params !== null);
  const [, force] = useState(0);
  const [error, setError] = useState<unknown>();
  const Screen = hit ? loaded.get(hit.r.pattern) : undefined;
  useEffect(() => {
    if (!hit || Screen) return;
    setError(undefined);
    hit.r.load().then((m) => {
      loaded.set(hit.r.pattern, m.default);
      force((n) => n + 1);
    }, setError);
  }, [hit?.r.pattern, Screen]);
  if (!hit) return <p>{t('notFound')}</p>;
  if (error) return <ErrorNote error={error} />;
  if (!Screen) return <Loading />;
  return <Screen params={hit.params ?? {}} />;
}

function isActive(to: string, path: string): boolean {
  if (to === '') return path === '';
  return path === to || path.startsWith(`${to}/`);
}

function Shell() {
  const { path } = route.value;
  return (
    <div class="shell">
      <a class="skip" href="#main">
        {t('skip')}
      </a>
      <header class="top">
        <Link to="" class="brand">
          Herald
        </Link>
        <nav aria-label={t('nav')} class="nav">
          {NAV.map((n) => (
            <Link key={n.to} to={n.to} aria-current={isActive(n.to, path) ? 'page' : undefined}>
              {t(n.key)}
            </Link>
          ))}
          <a href="/console/queues/">{t('queues')}</a>
        </nav>
        <div class="top-tools">
          <LangSwitch />
          <button type="button" class="secondary" onClick={() => void signOut()}>
            {t('signOut')}
          </button>
        </div>
      </header>
      <main id="main">
        <RouteView />
      </main>
    </div>
  );
}

/** While Herald cannot say whether the browser is signed in (restoreSession retries meanwhile). */
function Unavailable(props: { detail: string }) {
  return (
    <main class="sign-in" id="main">
      <div class="card-panel">
        <Notice kind="warn">
          <span>{t('unavailable')}</span> <span>{props.detail}</span>
        </Notice>
      </div>
    </main>
  );
}

export function App() {
  useEffect(() => {
    document.documentElement.lang = lang.value;
    void restoreSession();
  }, []);
  const s = session.value;
  if (s.state === 'unknown') return <Loading />;
  if (s.state === 'signed-out') return <SignIn />;
  if (s.state === 'unavailable') return <Unavailable detail={s.detail} />;
  return <Shell />;
}
