import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { translator } from '../i18n.ts';
import { type Bot, type IssuedToken, type Pipe, type RateForm, rateFromForm } from '../pipe-model.ts';
import { Link } from '../router.tsx';
import { ErrorNote, Field, Loading, Notice, useAction } from './components.tsx';
import { loadReach, loadTemplates } from './lookups.ts';
import { RateFields } from './rate-fields.tsx';
import { useLoad } from './use-load.ts';

const t = translator({
  'zh-CN': {
    heading: '新建管道',
    bot: '机器人',
    chooseBot: '选择机器人…',
    disabled: '（已停用）',
    channel: '频道',
    chooseChannel: '选择频道…',
    channelHint: '机器人已加入的服务器中的文字频道。',
    noReach: '这个机器人还没有加入任何有文字频道的服务器。',
    toDirectory: '在「服务器与频道」中把它加为成员',
    orFirstPipe: '或使用引导创建',
    truncated: '服务器太多，列表只显示了一部分。',
    format: '消息格式',
    plain: '纯文本（无模板：请求体为 {"content": "…"}）',
    banned: '（已封禁）',
    noTemplates: '这个机器人还没有模板（模板通过机器人 API 创建）。',
    title: '名称',
    titleHint: '1 到 64 个字符，例如发送方的名字。',
    create: '创建管道',
    cancel: '取消',
  },
  'en-US': {
    heading: 'New pipe',
    bot: 'Bot',
    chooseBot: 'Choose a bot…',
    disabled: ' (disabled)',
    channel: 'Channel',
    chooseChannel: 'Choose a channel…',
    channelHint: 'Text channels of the servers the bot has joined.',
    noReach: 'This bot has not joined a server with a text channel yet.',
    toDirectory: 'Add it as a member in Directory',
    orFirstPipe: 'or use the guided first pipe',
    truncated: 'There are many servers: only some were read.',
    format: 'Message format',
    plain: 'Plain text (no template: the body is {"content": "…"})',
    banned: ' (banned)',
    noTemplates: 'This bot has no templates yet (templates are created through the bot API).',
    title: 'Title',
    titleHint: '1 to 64 characters, e.g. who sends through it.',
    create: 'Create the pipe',
    cancel: 'Cancel',
  },
});

/** The create form: bot, then one of its reachable channels, then a template of it or plain. */
export function PipeCreate(props: {
  bots: readonly Bot[];
  onCreated: (created: { pipe: Pipe } & IssuedToken) => void;
  onCancel: () => void;
}) {
  const [botId, setBotId] = useState('');
  const [channelId, setChannelId] = useState('');
  const [templateId, setTemplateId] = useState('');
  const [title, setTitle] = useState('');
  const [rate, setRate] = useState<RateForm>({ custom: false, capacity: '60', per_second: '2' });
  const [rateInvalid, setRateInvalid] = useState<'capacity' | 'per_second'>();
  const bot = props.bots.find((b) => b.id === botId);
  const reach = useLoad(async () => (bot ? loadReach(bot) : null), [bot?.id]);
  const templates = useLoad(async () => (bot ? loadTemplates(bot.id) : null), [bot?.id]);

  const action = useAction(async () => {
    const r = rateFromForm(rate);
    if (!r.ok) {
      setRateInvalid(r.field);
      return;
    }
    setRateInvalid(undefined);
    const created = await api.post<{ pipe: Pipe } & IssuedToken>('/admin/api/pipe/create', {
      bot_id: botId,
      title: title.trim(),
      channel_id: channelId,
      template_id: templateId === '' ? null : templateId,
      rate_limit: r.rate_limit,
    });
    props.onCreated(created);
  });

  const channelCount = reach.data?.reach.reduce((n, r) => n + r.channels.length, 0) ?? 0;
  return (
    <form
      class="panel pipe-create"
      aria-labelledby="pipe-create-title"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run();
      }}
    >
      <h2 id="pipe-create-title">{t('heading')}</h2>
      <div class="form-grid">
        <Field label={t('bot')}>
          <select
            required
            value={botId}
            onChange={(e) => {
              setBotId(e.currentTarget.value);
              setChannelId('');
              setTemplateId('');
            }}
          >
            <option value="">{t('chooseBot')}</option>
            {props.bots.map((b) => (
              <option key={b.id} value={b.id}>
                {b.name}
                {b.enabled ? '' : t('disabled')}
              </option>
            ))}
          </select>
        </Field>
        {bot && (
          <Field label={t('channel')} hint={t('channelHint')}>
            {reach.loading && !reach.data ? (
              <Loading />
            ) : (
              <select
                required
                value={channelId}
                disabled={channelCount === 0}
                onChange={(e) => {
                  const id = e.currentTarget.value;
                  setChannelId(id);
                  const hit = reach.data?.reach.flatMap((r) => r.channels).find((c) => c.id === id);
                  if (hit && title.trim() === '') setTitle(`${bot.name} → #${hit.name}`.slice(0, 64));
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
        {bot && (
          <Field label={t('format')}>
            <select value={templateId} onChange={(e) => setTemplateId(e.currentTarget.value)}>
              <option value="">{t('plain')}</option>
              {templates.data?.items.map((tpl) => (
                <option key={tpl.id} value={tpl.id} disabled={tpl.banned === true}>
                  {tpl.title}
                  {tpl.banned ? t('banned') : ''}
                </option>
              ))}
            </select>
          </Field>
        )}
        <Field label={t('title')} hint={t('titleHint')}>
          <input required maxLength={64} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        </Field>
      </div>
      {reach.error && <ErrorNote error={reach.error} onRetry={reach.reload} />}
      {templates.error && <ErrorNote error={templates.error} onRetry={templates.reload} />}
      {bot && reach.data && channelCount === 0 && (
        <Notice kind="warn">
          {t('noReach')} <Link to="directory">{t('toDirectory')}</Link>
          {', '}
          <Link to="first-pipe">{t('orFirstPipe')}</Link>
        </Notice>
      )}
      {reach.data?.truncated && <Notice kind="warn">{t('truncated')}</Notice>}
      {bot && templates.data && templates.data.items.length === 0 && <p class="muted">{t('noTemplates')}</p>}
      <RateFields value={rate} invalid={rateInvalid} onChange={setRate} />
      {action.error !== undefined && <ErrorNote error={action.error} />}
      <div class="actions">
        <button type="submit" disabled={action.busy || !botId || !channelId || title.trim() === ''}>
          {t('create')}
        </button>
        <button type="button" class="secondary" onClick={props.onCancel}>
          {t('cancel')}
        </button>
      </div>
    </form>
  );
}
