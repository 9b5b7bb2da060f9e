import { useState } from 'preact/hooks';
import { ApiError, api } from '../api.ts';
import {
  alertmanagerConfig,
  type ConnectForm,
  connectBody,
  connectForm,
  contentType,
  eventsToTick,
  instruction,
  isNoSecretsKey,
  routedEvents,
  SENDER_NAMES,
  SENDERS,
  type Sender,
  takesOwnSecret,
} from '../connect-model.ts';
import { translator } from '../i18n.ts';
import type { IssuedToken, Pipe } from '../pipe-model.ts';
import { Link } from '../router.tsx';
import { ErrorNote, Field, Loading, Notice, Page, ShownOnce, useAction } from '../ui/components.tsx';
import { CopyBlock } from '../ui/curl-block.tsx';
import { loadBots, loadReach } from '../ui/lookups.ts';
import { useLoad } from '../ui/use-load.ts';

const t = translator({
  'zh-CN': {
    heading: '接入发送方',
    formHeading: '发送方与去向',
    intro:
      '为一个发送方（GitHub、GitLab、Alertmanager、Grafana、Sentry）创建管道：一步设好它的签名、按事件路由和模板库中的模板，然后把 URL 和密钥填到发送方的设置里。',
    sender: '发送方',
    bot: '机器人',
    chooseBot: '选择机器人…',
    noBots: '还没有机器人。',
    toFirstPipe: '使用引导创建第一个管道',
    channel: '频道',
    chooseChannel: '选择频道…',
    noReach: '这个机器人还没有加入任何有文字频道的服务器。',
    toDirectory: '在「服务器与频道」中把它加为成员',
    title: '名称',
    titleHint: '1 到 64 个字符，例如仓库名。',
    signing: '签名',
    ownSecret: '用发送方自己的密钥验证签名（HMAC-SHA256）',
    ownSecretHint: '不勾选时不验证签名：URL 中的令牌就是凭据。',
    secret: '密钥',
    secretHint: '16 到 256 个字符，与发送方设置里的相同。',
    header: '签名请求头',
    headerHint: '发送方放签名的请求头（十六进制 HMAC-SHA256）。',
    create: '创建管道',
    noKey:
      '服务器没有设置 SECRETS_KEY，无法保存这个发送方的签名密钥，所以没有创建管道。请运维人员设置 SECRETS_KEY（32 字节，例如 openssl rand -hex 32）并重启 Herald 的 web 进程后再试。GitLab 和 Alertmanager 不需要它。',
    done: '已创建管道「{title}」',
    doneBody: '下面的 URL 和密钥只显示这一次：现在就填到 {sender} 的设置里。',
    url: 'Payload URL',
    secretShown: '密钥（Secret）',
    noSecret: '这个管道不验证签名。',
    yourSecret: '签名用你填写的密钥验证（请求头 {header}），这里不再显示它。',
    contentType: 'Content type',
    events: '勾选的事件',
    answered: '只应答、不发送：',
    config: 'alertmanager.yml',
    copyConfig: '复制配置',
    toPipe: '打开管道页面',
    another: '再接入一个',
  },
  'en-US': {
    heading: 'Connect a sender',
    formHeading: 'The sender and where it posts',
    intro:
      "Make a pipe for a sender (GitHub, GitLab, Alertmanager, Grafana, Sentry): its signature, routing by event and the gallery's templates in one step; then paste the URL and secret into the sender's settings.",
    sender: 'Sender',
    bot: 'Bot',
    chooseBot: 'Choose a bot…',
    noBots: 'There are no bots yet.',
    toFirstPipe: 'Set up a first pipe with the guide',
    channel: 'Channel',
    chooseChannel: 'Choose a channel…',
    noReach: 'This bot has not joined a server with a text channel yet.',
    toDirectory: 'Add it as a member in Directory',
    title: 'Title',
    titleHint: '1 to 64 characters, e.g. the repository.',
    signing: 'Signature',
    ownSecret: "Verify signatures with the sender's own secret (HMAC-SHA256)",
    ownSecretHint: 'Unticked, signatures are not checked: the token in the URL is the credential.',
    secret: 'Secret',
    secretHint: "16 to 256 characters, the same as in the sender's settings.",
    header: 'Signature header',
    headerHint: 'The header the sender puts its signature in (hex HMAC-SHA256).',
    create: 'Create the pipe',
    noKey:
      "The server has no SECRETS_KEY, so it cannot keep this sender's signing secret: no pipe was made. Ask an operator to set SECRETS_KEY (32 bytes, e.g. openssl rand -hex 32) and restart Herald's web process, then try again. GitLab and Alertmanager do not need it.",
    done: 'Created the pipe "{title}"',
    doneBody: "The URL and the secret below are shown this once: paste them into {sender}'s settings now.",
    url: 'Payload URL',
    secretShown: 'Secret',
    noSecret: 'This pipe does not check signatures.',
    yourSecret:
      'Signatures are checked with the secret you gave (header {header}); it is not shown again here.',
    contentType: 'Content type',
    events: 'Events to tick',
    answered: 'Answered, not posted:',
    config: 'alertmanager.yml',
    copyConfig: 'Copy the configuration',
    toPipe: "Open the pipe's page",
    another: 'Connect another',
  },
});

/** Field errors, kept apart from `t` so each language's set is checked whole. */
const invalidText = translator({
  'zh-CN': {
    bot: '请选择机器人。',
    channel: '请选择频道。',
    title: '名称须为 1 到 64 个字符。',
    secret: '密钥须为 16 到 256 个字符。',
    header: '请求头名称只能含字母、数字和连字符。',
  },
  'en-US': {
    bot: 'Choose a bot.',
    channel: 'Choose a channel.',
    title: 'The title is 1 to 64 characters.',
    secret: 'The secret is 16 to 256 characters.',
    header: 'A header name has only letters, digits and hyphens.',
  },
});

type PipeWithRoutes = Pipe & { routes?: Record<string, string | null> | null };

interface Created extends IssuedToken {
  pipe: PipeWithRoutes;
  signing_secret?: string;
  templates?: { id: string; title: string; gallery_id: string }[];
}

export default function ConnectScreen() {
  const [created, setCreated] = useState<{ sender: Sender; ownSecret: boolean; answer: Created }>();
  return (
    <Page title={t('heading')}>
      {created ? (
        <Connected
          sender={created.sender}
          ownSecret={created.ownSecret}
          answer={created.answer}
          onAnother={() => setCreated(undefined)}
        />
      ) : (
        <ConnectFormView
          onCreated={(sender, ownSecret, answer) => setCreated({ sender, ownSecret, answer })}
        />
      )}
    </Page>
  );
}

function ConnectFormView(props: {
  onCreated: (sender: Sender, ownSecret: boolean, answer: Created) => void;
}) {
  const [form, setForm] = useState<ConnectForm>(() => connectForm('github'));
  const [invalid, setInvalid] = useState<'bot' | 'channel' | 'title' | 'secret' | 'header'>();
  const bots = useLoad(loadBots, []);
  const bot = bots.data?.items.find((b) => b.id === form.botId);
  const reach = useLoad(async () => (bot ? loadReach(bot) : null), [bot?.id]);
  const set = (patch: Partial<ConnectForm>) => setForm((f) => ({ ...f, ...patch }));

  const action = useAction(async () => {
    const r = connectBody(form);
    if (!r.ok) {
      setInvalid(r.field);
      return;
    }
    setInvalid(undefined);
    const answer = await api.post<Created>('/admin/api/pipe/create', r.body);
    props.onCreated(form.sender, r.body.signature !== undefined, answer);
  });

  if (bots.error) return <ErrorNote error={bots.error} onRetry={bots.reload} />;
  if (!bots.data) return <Loading />;
  if (bots.data.items.length === 0) {
    return (
      <Notice kind="info">
        {t('noBots')} <Link to="first-pipe">{t('toFirstPipe')}</Link>
      </Notice>
    );
  }
  const channelCount = reach.data?.reach.reduce((n, r) => n + r.channels.length, 0) ?? 0;
  return (
    <form
      class="panel pipe-create"
      aria-labelledby="connect-title"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run();
      }}
    >
      <h2 id="connect-title">{t('formHeading')}</h2>
      <p class="muted">{t('intro')}</p>
      <div class="form-grid">
        <Field label={t('sender')}>
          <select
            value={form.sender}
            onChange={(e) => {
              const sender = e.currentTarget.value as Sender;
              setForm((f) => ({
                ...connectForm(sender),
                botId: f.botId,
                channelId: f.channelId,
                title: f.title,
              }));
            }}
          >
            {SENDERS.map((s) => (
              <option key={s} value={s}>
                {SENDER_NAMES[s]}
              </option>
            ))}
          </select>
        </Field>
        <Field label={t('bot')}>
          <select
            required
            value={form.botId}
            onChange={(e) => set({ botId: e.currentTarget.value, channelId: '' })}
          >
            <option value="">{t('chooseBot')}</option>
            {bots.data.items.map((b) => (
              <option key={b.id} value={b.id}>
                {b.name}
              </option>
            ))}
          </select>
        </Field>
        {bot && (
          <Field label={t('channel')}>
            {reach.loading && !reach.data ? (
              <Loading />
            ) : (
              <select
                required
                value={form.channelId}
                disabled={channelCount === 0}
                onChange={(e) => {
                  const id = e.currentTarget.value;
                  const hit = reach.data?.reach.flatMap((r) => r.channels).find((c) => c.id === id);
                  set({
                    channelId: id,
                    ...(hit && form.title.trim() === ''
                      ? { title: `${SENDER_NAMES[form.sender]} → #${hit.name}`.slice(0, 64) }
                      : {}),
                  });
                }}
              >
                <option value="">{t('chooseChannel')}</option>
                {reach.data?.reach.map((r) =>
                  r.channels.length === 0 ? null : (
                    <optgroup key={r.guild.id} label={r.guild.name}>
                      {r.channels.map((c) => (
                        <option key={c.id} value={c.id}>
                          #{c.name}
                        </option>
                      ))}
                    </optgroup>
                  ),
                )}
              </select>
            )}
          </Field>
        )}
        <Field label={t('title')} hint={t('titleHint')}>
          <input
            required
            maxLength={64}
            value={form.title}
            onInput={(e) => set({ title: e.currentTarget.value })}
          />
        </Field>
      </div>
      {takesOwnSecret(form.sender) && (
        <fieldset class="rate-fields">
          <legend>{t('signing')}</legend>
          <label class="check">
            <input
              type="checkbox"
              checked={form.ownSecret}
              onChange={(e) => set({ ownSecret: e.currentTarget.checked })}
            />
            <span>{t('ownSecret')}</span>
          </label>
          <p class="field-hint">{t('ownSecretHint')}</p>
          {form.ownSecret && (
            <div class="form-grid">
              <Field label={t('secret')} hint={t('secretHint')}>
                <input
                  type="password"
                  autoComplete="off"
                  required
                  minLength={16}
                  maxLength={256}
                  value={form.secret}
                  aria-invalid={invalid === 'secret' ? 'true' : undefined}
                  onInput={(e) => set({ secret: e.currentTarget.value })}
                />
              </Field>
              <Field label={t('header')} hint={t('headerHint')}>
                <input
                  required
                  value={form.header}
                  aria-invalid={invalid === 'header' ? 'true' : undefined}
                  onInput={(e) => set({ header: e.currentTarget.value })}
                />
              </Field>
            </div>
          )}
        </fieldset>
      )}
      {reach.error && <ErrorNote error={reach.error} onRetry={reach.reload} />}
      {bot && reach.data && channelCount === 0 && (
        <Notice kind="warn">
          {t('noReach')} <Link to="directory">{t('toDirectory')}</Link>
        </Notice>
      )}
      {invalid && <Notice kind="warn">{invalidText(invalid)}</Notice>}
      {action.error !== undefined && <CreateError error={action.error} />}
      <div class="actions">
        <button
          type="submit"
          disabled={action.busy || !form.botId || !form.channelId || form.title.trim() === ''}
        >
          {t('create')}
        </button>
      </div>
    </form>
  );
}

/** A create that failed: the missing SECRETS_KEY explained, anything else as the API said it. */
export function CreateError(props: { error: unknown }) {
  return isNoSecretsKey(props.error) ? (
    <div class="notice warn" role="alert">
      {t('noKey')} ({props.error instanceof ApiError ? props.error.code : ''})
    </div>
  ) : (
    <ErrorNote error={props.error} />
  );
}

/** What to paste into the sender's settings: shown once, from the create answer held in memory. */
export function Connected(props: {
  sender: Sender;
  answer: Created;
  /** The operator gave the sender's own secret. */
  ownSecret?: boolean;
  onAnother?: () => void;
}) {
  const { sender, answer } = props;
  const ticks = eventsToTick(sender, answer.pipe.routes);
  const { answered } = routedEvents(answer.pipe.routes);
  return (
    <section class="panel issued" aria-labelledby="connected-title">
      <h2 id="connected-title">{t('done', { title: answer.pipe.title })}</h2>
      <p>{t('doneBody', { sender: SENDER_NAMES[sender] })}</p>
      <p>{instruction(sender)}</p>
      <ShownOnce label={t('url')} value={answer.url} />
      {props.ownSecret ? (
        // The operator typed it and holds it already: it is not shown back.
        <p>{t('yourSecret', { header: answer.pipe.signature?.header ?? '—' })}</p>
      ) : answer.signing_secret ? (
        <ShownOnce label={t('secretShown')} value={answer.signing_secret} />
      ) : (
        <p class="muted">{t('noSecret')}</p>
      )}
      <dl class="facts">
        <dt>{t('contentType')}</dt>
        <dd>
          <code>{contentType(sender)}</code>
        </dd>
        <dt>{t('events')}</dt>
        <dd>
          <ul class="connect-events">
            {ticks.map((e) => (
              <li key={e.event}>
                {e.label} {e.label !== e.event && <code>{e.event}</code>}
              </li>
            ))}
          </ul>
          {answered.length > 0 && (
            <p class="muted">
              {t('answered')}{' '}
              {answered.map((e) => (
                <code key={e}>{e} </code>
              ))}
            </p>
          )}
        </dd>
      </dl>
      {sender === 'alertmanager' && (
        <CopyBlock title={t('config')} copyLabel={t('copyConfig')} text={alertmanagerConfig(answer.url)} />
      )}
      <div class="actions">
        <Link to={`pipes/${encodeURIComponent(answer.pipe.id)}`}>{t('toPipe')}</Link>
        {props.onAnother && (
          <button type="button" class="secondary" onClick={props.onAnother}>
            {t('another')}
          </button>
        )}
      </div>
    </section>
  );
}
