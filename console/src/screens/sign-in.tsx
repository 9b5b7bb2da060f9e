import { useState } from 'preact/hooks';
import { ApiError, signIn } from '../api.ts';
import { translator } from '../i18n.ts';
import { ErrorNote, Field, useAction } from '../ui/components.tsx';
import { LangSwitch } from '../ui/lang-switch.tsx';

const t = translator({
  'zh-CN': {
    title: '登录 Herald 控制台',
    token: '运维令牌',
    hint: '启动时设置的 ADMIN_TOKEN（npm run demo 会打印它）。',
    submit: '登录',
    wrong: '令牌不正确。',
    throttled: '失败次数过多，请 {s} 秒后再试。',
  },
  'en-US': {
    title: 'Sign in to Herald Console',
    token: 'Operator token',
    hint: 'The ADMIN_TOKEN the service was started with (npm run demo prints it).',
    submit: 'Sign in',
    wrong: 'That token is not right.',
    throttled: 'Too many failed tries: try again in {s} s.',
  },
});

/**
 * What the form says of a failed sign-in: a 401 is the wrong token, a 429 the wait; anything else
 * (a 503 when Herald cannot reach Redis, a 403 or 415) in Herald's own words.
 */
export function signInMessage(e: unknown): unknown {
  if (e instanceof ApiError && e.status === 401) return new Error(t('wrong'));
  if (e instanceof ApiError && e.status === 429) return new Error(t('throttled', { s: e.retryAfterS ?? 60 }));
  return e;
}

/** The sign-in form; the token goes only into the POST body, never into a URL or storage. */
export function SignIn() {
  const [token, setToken] = useState('');
  const action = useAction(async () => {
    await signIn(token);
  });
  const message = signInMessage(action.error);
  return (
    <main class="sign-in" id="main">
      <form
        class="card-panel"
        onSubmit={(ev) => {
          ev.preventDefault();
          void action.run();
        }}
      >
        <div class="sign-in-head">
          <h1>{t('title')}</h1>
          <LangSwitch />
        </div>
        <Field label={t('token')} hint={t('hint')}>
          <input
            type="password"
            name="token"
            autoComplete="current-password"
            required
            value={token}
            onInput={(ev) => setToken(ev.currentTarget.value)}
          />
        </Field>
        {message !== undefined && <ErrorNote error={message} />}
        <button type="submit" disabled={action.busy || token === ''}>
          {t('submit')}
        </button>
      </form>
    </main>
  );
}
