import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type Role, restoreSession, session, signOut } from './api.ts';
import { lang, translator } from './i18n.ts';
import { Link, match, navigate, route } from './router.tsx';
import { SignIn } from './screens/sign-in.tsx';
import { homeFor, navFor, routeAllowed, showsQueues } from './shell-model.ts';
import { ErrorNote, Loading, Notice } from './ui/components.tsx';
import { LangSwitch } from './ui/lang-switch.tsx';

const t = translator({
  'zh-CN': {
    skip: '跳到正文',
    overview: '概览',
    firstPipe: '创建第一个管道',
    connect: '接入发送方',
    bots: '机器人',
    directory: '服务器与频道',
    pipes: '管道',
    deliveries: '投递',
    templates: '模板',
    gallery: '模板库',
    queues: '队列',
    signOut: '退出登录',
    notFound: '没有这个页面。',
    nav: '主导航',
    unavailable: 'Herald 无法连接它所依赖的服务（Redis），正在重试…',
    botSession: '机器人：{name}',
    operatorOnly: '这个页面只对运维人员开放；机器人开发者可以使用模板和模板库。',
    toTemplates: '前往模板',
  },
  'en-US': {
    skip: 'Skip to content',
    overview: 'Overview',
    firstPipe: 'First pipe',
    connect: 'Connect a sender',
    bots: 'Bots',
    directory: 'Directory',
    pipes: 'Pipes',
    deliveries: 'Deliveries',
    templates: 'Templates',
    gallery: 'Gallery',
    queues: 'Queues',
    signOut: 'Sign out',
    notFound: 'There is no such page.',
    nav: 'Main navigation',
    unavailable: 'Herald cannot reach its services (Redis); retrying…',
    botSession: 'Bot: {name}',
    operatorOnly: 'This page is for operators; a bot developer has the templates and the gallery.',
    toTemplates: 'Go to templates',
  },
});

type Screen = ComponentType<{ params: Record<string, string> }>;
type Loader = () => Promise<{ default: Screen }>;

/** Each screen is its own chunk, loaded when its route is first opened. */
const ROUTES: readonly { pattern: string; load: Loader }[] = [
  { pattern: '', load: () => import('./screens/overview.tsx') },
  { pattern: 'first-pipe', load: () => import('./screens/first-pipe.tsx') },
  { pattern: 'connect', load: () => import('./screens/connect.tsx') },
  { pattern: 'bots', load: () => import('./screens/bots.tsx') },
  { pattern: 'bots/:id', load: () => import('./screens/bot.tsx') },
  { pattern: 'intimacy', load: () => import('./screens/intimacy.tsx') },
  { pattern: 'directory', load: () => import('./screens/directory.tsx') },
  { pattern: 'directory/:guildId', load: () => import('./screens/guild.tsx') },
  { pattern: 'pipes', load: () => import('./screens/pipes.tsx') },
  { pattern: 'pipes/:id', load: () => import('./screens/pipe.tsx') },
  { pattern: 'deliveries', load: () => import('./screens/deliveries.tsx') },
  { pattern: 'deliveries/:msgId', load: () => import('./screens/delivery.tsx') },
  { pattern: 'templates', load: () => import('./screens/templates.tsx') },
  // The template studio; `new` first, as `templates/:id` would also match it.
  { pattern: 'templates/new', load: () => import('./screens/template.tsx') },
  { pattern: 'templates/:id', load: () => import('./screens/template.tsx') },
  { pattern: 'gallery', load: () => import('./screens/gallery.tsx') },
  { pattern: 'gallery/:id', load: () => import('./screens/gallery-item.tsx') },
];

const loaded = new Map<string, Screen>();

function RouteView(props: { role: Role }) {
  const { path } = route.value;
  const hit = ROUTES.map((r) => ({ r, params: match(r.pattern, path) })).find((x) => x.params !== null);
  const [, force] = useState(0);
  const [error, setError] = useState<unknown>();
  const allowed = hit ? routeAllowed(props.role, hit.r.pattern) : false;
  const Screen = hit ? loaded.get(hit.r.pattern) : undefined;
  const home = homeFor(props.role);
  // The empty path is home: a bot session's is its templates (the overview is the operators').
  useEffect(() => {
    if (path === '' && home !== '') navigate(home, true);
  }, [path, home]);
  useEffect(() => {
    if (!hit || !allowed || Screen) return;
    setError(undefined);
    hit.r.load().then((m) => {
      loaded.set(hit.r.pattern, m.default);
      force((n) => n + 1);
    }, setError);
  }, [hit?.r.pattern, allowed, Screen]);
  if (!hit) return <p>{t('notFound')}</p>;
  if (!allowed) {
    return path === '' ? (
      <Loading />
    ) : (
      <Notice kind="warn">
        <span>{t('operatorOnly')}</span> <Link to={home}>{t('toTemplates')}</Link>
      </Notice>
    );
  }
  if (error) return <ErrorNote error={error} />;
  if (!Screen) return <Loading />;
  return <Screen params={hit.params ?? {}} />;
}

function isActive(to: string, path: string): boolean {
  if (to === '') return path === '';
  return path === to || path.startsWith(`${to}/`);
}

function Shell(props: { role: Role; botName: string | undefined }) {
  const { path } = route.value;
  const { role } = props;
  return (
    <div class="shell">
      <a class="skip" href="#main">
        {t('skip')}
      </a>
      <header class="top">
        <Link to={homeFor(role)} class="brand">
          Herald
        </Link>
        <nav aria-label={t('nav')} class="nav">
          {navFor(role).map((n) => (
            <Link key={n.to} to={n.to} aria-current={isActive(n.to, path) ? 'page' : undefined}>
              {t(n.key)}
            </Link>
          ))}
          {showsQueues(role) && <a href="/console/queues/">{t('queues')}</a>}
        </nav>
        <div class="top-tools">
          {role === 'bot' && <span class="who">{t('botSession', { name: props.botName ?? '—' })}</span>}
          <LangSwitch />
          <button type="button" class="secondary" onClick={() => void signOut()}>
            {t('signOut')}
          </button>
        </div>
      </header>
      <main id="main">
        <RouteView role={role} />
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
  if (s.state === 'unavailable') return <Unavailable detail={s.detail} />;
  if (s.state !== 'signed-in') return s.state === 'signed-out' ? <SignIn /> : <Loading />;
  return <Shell role={s.role} botName={s.bot?.name} />;
}
