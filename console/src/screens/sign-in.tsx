import { useState } from 'preact/hooks';
import { ApiError, type SignInKind, signIn } from '../api.ts';
import { translator } from '../i18n.ts';
import { ErrorNote, Field, useAction } from '../ui/components.tsx';
import { LangSwitch } from '../ui/lang-switch.tsx';

const t = translator({
  'zh-CN': {
    title: '登录 Herald 控制台',
    as: '登录身份',
    operator: '运维人员（ADMIN_TOKEN）',
    bot: '机器人开发者（机器人令牌）',
    token: '运维令牌',
    hint: '启动时设置的 ADMIN_TOKEN（npm run demo 会打印它）。',
    botToken: '机器人令牌',
    botHint: '机器人的令牌：只能看到和编辑这个机器人的模板；令牌轮换或机器人被删除后会话即结束。',
    submit: '登录',
    wrong: '令牌不正确。',
    throttled: '失败次数过多，请 {s} 秒后再试。',
  },
  'en-US': {
    title: 'Sign in to Herald Console',
    as: 'Sign in as',
    operator: 'Operator (ADMIN_TOKEN)',
    bot: 'Bot developer (bot token)',
    token: 'Operator token',
    hint: 'The ADMIN_TOKEN the service was started with (npm run demo prints it).',
    botToken: 'Bot token',
    botHint:
      "The bot's token: you see and edit only this bot's templates; the session ends when the token is rotated or the bot deleted.",
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

/**
 * The sign-in form, as an operator (ADMIN_TOKEN) or as a bot's developer (the bot's token); the
 * token goes only into the POST body, never into a URL or storage.
 */
export function SignIn() {
  const [token, setToken] = useState('');
  const [kind, setKind] = useState<SignInKind>('operator');
  const action = useAction(async () => {
    await signIn(token, kind);
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
        <fieldset class="sign-in-kind">
          <legend>{t('as')}</legend>
          {(['operator', 'bot'] as const).map((k) => (
            <label key={k} class="check">
              <input
                type="radio"
                name="kind"
                value={k}
                checked={kind === k}
                onChange={() => {
                  setKind(k);
                  action.clearError();
                }}
              />{' '}
              {t(k)}
            </label>
          ))}
        </fieldset>
        <Field
          label={kind === 'bot' ? t('botToken') : t('token')}
          hint={kind === 'bot' ? t('botHint') : t('hint')}
        >
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
