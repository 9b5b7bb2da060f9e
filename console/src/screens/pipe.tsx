import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api.ts';
import { eventSourceText, routedEvents, signatureText } from '../connect-model.ts';
import { type Delivery, deliveriesPath, type ListPage, statusLabel } from '../deliveries.ts';
import { groupingText } from '../grouping-form.ts';
import { formatNumber, formatTime, translator } from '../i18n.ts';
import { takeIssued } from '../issued.ts';
import {
  type Bot,
  type IssuedToken,
  PIPE_OVERFLOWS,
  type Pipe,
  type PipeOverflow,
  type RateForm,
  rateForm,
  rateFromForm,
  sampleBody,
  type Template,
} from '../pipe-model.ts';
import { Link, navigate } from '../router.tsx';
import {
  Badge,
  Confirm,
  ErrorNote,
  Field,
  Loading,
  Notice,
  Page,
  ShownOnce,
  Table,
  useAction,
} from '../ui/components.tsx';
import { CurlBlock } from '../ui/curl-block.tsx';
import { guildView } from '../ui/lookups.ts';
import { PipeCaptures } from '../ui/pipe-captures.tsx';
import { PipeGroupingPanel } from '../ui/pipe-grouping.tsx';
import { PipeRouting } from '../ui/pipe-routes.tsx';
import { PipeSignaturePanel } from '../ui/pipe-signature.tsx';
import { RateFields } from '../ui/rate-fields.tsx';
import { SendTest } from '../ui/send-test.tsx';
import { useLoad } from '../ui/use-load.ts';

const t = translator({
  'zh-CN': {
    pipe: '管道',
    back: '← 全部管道',
    notFound: '没有这个管道（可能已被删除）。',
    enabled: '启用',
    disabled: '停用',
    enable: '启用',
    disable: '停用',
    rotate: '更换 URL',
    delete: '删除',
    url: '管道 URL',
    urlHidden: 'URL 中含有访问令牌，只在创建管道或更换 URL 时显示一次。丢失了就更换 URL：旧 URL 会立即失效。',
    details: '详情',
    bot: '机器人',
    channel: '频道',
    server: '服务器',
    format: '格式',
    plain: '纯文本（请求体 {"content": "…"}）',
    template: '模板',
    created: '创建于',
    updated: '更新于',
    rateInForce: '生效的速率',
    rateValue: '突发 {capacity} 条，每秒 {perSecond} 条',
    settings: '设置',
    overflow: '超出平台限制的消息',
    overflow_split: '拆分为多条消息（按顺序）',
    overflow_truncate: '截断，并标注“已截断”',
    overflow_fail: '发送失败',
    name: '名称',
    save: '保存',
    saved: '已保存。',
    test: '测试',
    latest: '最近的投递',
    latestCaption: '这个管道最近的投递',
    all: '查看这个管道的全部投递',
    colMsg: '消息',
    colStatus: '状态',
    colReason: '原因',
    colAttempts: '尝试',
    colCreated: '时间',
    noDeliveries: '还没有投递。',
    rotateTitle: '更换这个管道的 URL？',
    rotateBody: '当前 URL 会立即失效，每个发送方都需要换成新的 URL。新 URL 只显示一次。',
    rotateConfirm: '更换 URL',
    deleteTitle: '删除管道「{title}」？',
    deleteBody: '它的 URL 会立即失效；已排队但尚未投递的消息会以 PIPE_DELETED 失败。此操作无法撤销。',
    deleteConfirm: '删除管道',
    signature: '签名',
    preset: '预设',
    noPreset: '无',
    eventSource: '事件来源',
    routes: '路由',
    grouping: '分组',
    answered: '只应答，不发送',
    noRoutes: '没有路由。',
    byEvent: '按事件选模板（见「路由」）；其他事件只应答、不发送',
    defaultTemplate: '其他事件的默认模板',
  },
  'en-US': {
    pipe: 'Pipe',
    back: '← All pipes',
    notFound: 'There is no such pipe (it may have been deleted).',
    enabled: 'Enabled',
    disabled: 'Disabled',
    enable: 'Enable',
    disable: 'Disable',
    rotate: 'Rotate URL',
    delete: 'Delete',
    url: 'Pipe URL',
    urlHidden:
      'The URL holds an access token and is shown only once, when the pipe is created or its URL rotated. Lost it? Rotate the URL: the old one stops working at once.',
    details: 'Details',
    bot: 'Bot',
    channel: 'Channel',
    server: 'Server',
    format: 'Format',
    plain: 'Plain text (body {"content": "…"})',
    template: 'Template',
    created: 'Created',
    updated: 'Updated',
    rateInForce: 'Rate in force',
    rateValue: '{capacity} burst, {perSecond} per second',
    settings: 'Settings',
    overflow: 'Messages over the limits',
    overflow_split: 'Split over several messages, in order',
    overflow_truncate: 'Truncate, with a marker',
    overflow_fail: 'Fail',
    name: 'Title',
    save: 'Save',
    saved: 'Saved.',
    test: 'Test',
    latest: 'Latest deliveries',
    latestCaption: "This pipe's latest deliveries",
    all: "All of this pipe's deliveries",
    colMsg: 'Message',
    colStatus: 'Status',
    colReason: 'Reason',
    colAttempts: 'Attempts',
    colCreated: 'Time',
    noDeliveries: 'No deliveries yet.',
    rotateTitle: "Rotate this pipe's URL?",
    rotateBody:
      'The current URL stops working at once: every sender needs the new one. The new URL is shown only once.',
    rotateConfirm: 'Rotate URL',
    deleteTitle: 'Delete the pipe "{title}"?',
    deleteBody:
      'Its URL stops working at once; messages queued and not yet delivered fail with PIPE_DELETED. This cannot be undone.',
    deleteConfirm: 'Delete pipe',
    signature: 'Signature',
    preset: 'Preset',
    noPreset: 'None',
    eventSource: 'Event source',
    routes: 'Routes',
    grouping: 'Grouping',
    answered: 'answered, not posted',
    noRoutes: 'No routes.',
    byEvent: 'A template per event (see Routes); other events are answered, not posted',
    defaultTemplate: 'Default template for other events',
  },
});

/** Latest deliveries shown, refreshed while the page is open. */
const LATEST = 10;
const LATEST_REFRESH_MS = 5000;

interface Loaded {
  pipe: Pipe;
  bot: Bot | null;
  template: Template | null;
  channelName: string | null;
  guildName: string | null;
  /** Titles of the templates the routes name (id -> title), where they could be read. */
  routeTitles: ReadonlyMap<string, string>;
}

async function loadPipe(id: string): Promise<Loaded> {
  const { pipe } = await api.get<{ pipe: Pipe }>('/admin/api/pipe/view', { id });
  const [bot, template, guild] = await Promise.all([
    api
      .get<{ bot: Bot }>('/admin/api/bot/view', { id: pipe.bot_id })
      .then((r) => r.bot)
      .catch(() => null),
    pipe.template_id === null
      ? null
      : api
          .get<{ template: Template }>('/admin/api/template/view', { id: pipe.template_id })
          .then((r) => r.template)
          .catch(() => null),
    guildView(pipe.guild_id).catch(() => null),
  ]);
  const channel = guild?.channels?.find((c) => c.id === pipe.channel_id);
  const routeIds = [...new Set(routedEvents(pipe.routes).posted.map((r) => r.templateId))];
  const titles = await Promise.all(
    routeIds.map((tid) =>
      api
        .get<{ template: Template }>('/admin/api/template/view', { id: tid })
        .then((r): [string, string] => [tid, r.template.title])
        .catch(() => null),
    ),
  );
  return {
    pipe,
    bot,
    template,
    channelName: channel?.name ?? null,
    guildName: guild?.name ?? null,
    routeTitles: new Map(titles.filter((x) => x !== null)),
  };
}

export default function PipeScreen(props: { params: Record<string, string> }) {
  const id = props.params.id ?? '';
  // A URL handed over by the create form is shown once, kept only in this screen's memory.
  const [shown, setShown] = useState<{ id: string; token: IssuedToken } | undefined>(() => {
    const token = takeIssued(id);
    return token ? { id, token } : undefined;
  });
  useEffect(() => {
    if (shown?.id === id) return;
    const token = takeIssued(id);
    setShown(token ? { id, token } : undefined);
  }, [id]);
  const issued = shown?.id === id ? shown.token : undefined;
  const loaded = useLoad(() => loadPipe(id), [id]);
  const [confirm, setConfirm] = useState<'rotate' | 'delete' | null>(null);

  const toggle = useAction(async (enabled: boolean) => {
    await api.post('/admin/api/pipe/update', { id, enabled });
    loaded.reload();
  });
  const rotate = useAction(async () => {
    setConfirm(null);
    setShown({ id, token: await api.post<IssuedToken>('/admin/api/pipe/rotate-token', { id }) });
  });
  const remove = useAction(async () => {
    setConfirm(null);
    await api.post('/admin/api/pipe/delete', { id });
    navigate('pipes');
  });

  if (loaded.error) {
    const gone = loaded.error instanceof ApiError && loaded.error.status === 404;
    return (
      <Page title={t('pipe')}>
        <p>
          <Link to="pipes">{t('back')}</Link>
        </p>
        {gone ? (
          <Notice kind="warn">{t('notFound')}</Notice>
        ) : (
          <ErrorNote error={loaded.error} onRetry={loaded.reload} />
        )}
      </Page>
    );
  }
  if (!loaded.data) return <Loading />;
  const { pipe, bot, template, channelName, guildName, routeTitles } = loaded.data;
  const routes = routedEvents(pipe.routes);
  const sample = sampleBody(pipe.template_id === null ? null : (template ?? { test_data: '' }));

  return (
    <Page
      title={pipe.title}
      actions={
        <>
          <Badge
            status={pipe.enabled ? 'enabled' : 'disabled'}
            label={pipe.enabled ? t('enabled') : t('disabled')}
          />
          <button
            type="button"
            class="secondary"
            disabled={toggle.busy}
            onClick={() => void toggle.run(!pipe.enabled)}
          >
            {pipe.enabled ? t('disable') : t('enable')}
          </button>
          <button type="button" class="secondary" disabled={rotate.busy} onClick={() => setConfirm('rotate')}>
            {t('rotate')}
          </button>
          <button type="button" class="danger" disabled={remove.busy} onClick={() => setConfirm('delete')}>
            {t('delete')}
          </button>
        </>
      }
    >
      <p>
        <Link to="pipes">{t('back')}</Link>
      </p>
      {toggle.error !== undefined && <ErrorNote error={toggle.error} />}
      {rotate.error !== undefined && <ErrorNote error={rotate.error} />}
      {remove.error !== undefined && <ErrorNote error={remove.error} />}

      {issued ? (
        <div class="issued">
          <ShownOnce label={t('url')} value={issued.url} />
          <CurlBlock url={issued.url} body={sample} />
        </div>
      ) : (
        <Notice kind="info">{t('urlHidden')}</Notice>
      )}

      <div class="pipe-columns">
        <section class="panel" aria-labelledby="pipe-details">
          <h2 id="pipe-details">{t('details')}</h2>
          <dl class="facts">
            <dt>{t('bot')}</dt>
            <dd>
              <Link to={`bots/${encodeURIComponent(pipe.bot_id)}`}>{bot?.name ?? pipe.bot_id}</Link>
            </dd>
            <dt>{t('channel')}</dt>
            <dd>
              <Link to={`directory/${encodeURIComponent(pipe.guild_id)}`}>
                {channelName ? `#${channelName}` : pipe.channel_id}
              </Link>
              {guildName && <span class="muted"> · {guildName}</span>}
            </dd>
            <dt>{t('format')}</dt>
            <dd>
              {pipe.template_id === null ? (
                pipe.event_source ? (
                  t('byEvent')
                ) : (
                  t('plain')
                )
              ) : (
                <>
                  {pipe.event_source ? t('defaultTemplate') : t('template')}:{' '}
                  <Link to={`templates/${encodeURIComponent(pipe.template_id)}`}>
                    {template?.title ?? pipe.template_id}
                  </Link>
                </>
              )}
            </dd>
            <dt>{t('signature')}</dt>
            <dd>{signatureText(pipe.signature)}</dd>
            <dt>{t('preset')}</dt>
            <dd>{pipe.preset ? <code>{pipe.preset}</code> : t('noPreset')}</dd>
            <dt>{t('eventSource')}</dt>
            <dd>{eventSourceText(pipe.event_source)}</dd>
            {pipe.event_source && (
              <>
                <dt>{t('routes')}</dt>
                <dd>
                  {routes.posted.length + routes.answered.length === 0 ? (
                    t('noRoutes')
                  ) : (
                    <ul class="pipe-routes">
                      {routes.posted.map((r) => (
                        <li key={r.event}>
                          <code>{r.event}</code> →{' '}
                          <Link to={`templates/${encodeURIComponent(r.templateId)}`}>
                            {routeTitles.get(r.templateId) ?? r.templateId}
                          </Link>
                        </li>
                      ))}
                      {routes.answered.map((e) => (
                        <li key={e}>
                          <code>{e}</code> → <span class="muted">{t('answered')}</span>
                        </li>
                      ))}
                    </ul>
                  )}
                </dd>
              </>
            )}
            <dt>{t('grouping')}</dt>
            <dd>{groupingText(pipe.grouping)}</dd>
            <dt>{t('rateInForce')}</dt>
            <dd>
              {t('rateValue', {
                capacity: formatNumber(pipe.rate_limit_in_force.capacity),
                perSecond: formatNumber(pipe.rate_limit_in_force.per_second),
              })}
            </dd>
            <dt>{t('created')}</dt>
            <dd>{formatTime(pipe.created_at)}</dd>
            <dt>{t('updated')}</dt>
            <dd>{formatTime(pipe.updated_at)}</dd>
          </dl>
        </section>
        <PipeSettings pipe={pipe} onSaved={loaded.reload} />
      </div>

      <LatestDeliveries pipeId={pipe.id} />

      <PipeRouting key={pipe.id} pipe={pipe} onSaved={loaded.reload} />

      <PipeGroupingPanel key={pipe.id} pipe={pipe} onSaved={loaded.reload} />

      <PipeSignaturePanel key={pipe.id} pipe={pipe} onChanged={loaded.reload} />

      <section class="panel" aria-labelledby="pipe-test">
        <h2 id="pipe-test">{t('test')}</h2>
        <SendTest pipeId={pipe.id} />
      </section>

      <PipeCaptures pipe={pipe} onChanged={loaded.reload} />

      <Confirm
        open={confirm === 'rotate'}
        title={t('rotateTitle')}
        confirmLabel={t('rotateConfirm')}
        danger
        onCancel={() => setConfirm(null)}
        onConfirm={() => void rotate.run()}
      >
        <p>{t('rotateBody')}</p>
      </Confirm>
      <Confirm
        open={confirm === 'delete'}
        title={t('deleteTitle', { title: pipe.title })}
        confirmLabel={t('deleteConfirm')}
        danger
        onCancel={() => setConfirm(null)}
        onConfirm={() => void remove.run()}
      >
        <p>{t('deleteBody')}</p>
      </Confirm>
    </Page>
  );
}

function PipeSettings(props: { pipe: Pipe; onSaved: () => void }) {
  const { pipe } = props;
  const [title, setTitle] = useState(pipe.title);
  const [rate, setRate] = useState<RateForm>(() => rateForm(pipe));
  const [overflow, setOverflow] = useState<PipeOverflow>(pipe.overflow ?? 'split');
  const [invalid, setInvalid] = useState<'capacity' | 'per_second'>();
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    setTitle(pipe.title);
    setRate(rateForm(pipe));
    setOverflow(pipe.overflow ?? 'split');
  }, [pipe.updated_at]);
  const save = useAction(async () => {
    setSaved(false);
    const r = rateFromForm(rate);
    if (!r.ok) {
      setInvalid(r.field);
      return;
    }
    setInvalid(undefined);
    await api.post('/admin/api/pipe/update', {
      id: pipe.id,
      title: title.trim(),
      rate_limit: r.rate_limit,
      overflow,
    });
    setSaved(true);
    props.onSaved();
  });
  // The default is what is in force when the pipe has no limit of its own.
  const defaults = pipe.rate_limit === null ? pipe.rate_limit_in_force : undefined;
  return (
    <form
      class="panel"
      aria-labelledby="pipe-settings"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <h2 id="pipe-settings">{t('settings')}</h2>
      <Field label={t('name')}>
        <input required maxLength={64} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
      </Field>
      <RateFields
        value={rate}
        defaults={defaults}
        invalid={invalid}
        onChange={(next) => {
          setRate(next);
          setSaved(false);
        }}
      />
      <Field label={t('overflow')}>
        <select
          value={overflow}
          onChange={(e) => {
            setOverflow(PIPE_OVERFLOWS.find((o) => o === e.currentTarget.value) ?? 'split');
            setSaved(false);
          }}
        >
          {PIPE_OVERFLOWS.map((o) => (
            <option key={o} value={o}>
              {t(`overflow_${o}`)}
            </option>
          ))}
        </select>
      </Field>
      {save.error !== undefined && <ErrorNote error={save.error} />}
      {saved && <Notice kind="ok">{t('saved')}</Notice>}
      <button type="submit" disabled={save.busy || title.trim() === ''}>
        {t('save')}
      </button>
    </form>
  );
}

function LatestDeliveries(props: { pipeId: string }) {
  const list = useLoad(
    () =>
      api.get<ListPage<Delivery>>('/admin/api/delivery/list', {
        pipe_id: props.pipeId,
        status: 'any',
        page: 1,
        page_size: LATEST,
      }),
    [props.pipeId],
    LATEST_REFRESH_MS,
  );
  return (
    <section class="spaced" aria-labelledby="pipe-latest">
      <div class="section-head">
        <h2 id="pipe-latest">{t('latest')}</h2>
        <Link to={deliveriesPath({ pipe_id: props.pipeId })}>{t('all')}</Link>
      </div>
      {list.error && <ErrorNote error={list.error} onRetry={list.reload} />}
      {!list.data && !list.error && <Loading />}
      {list.data && (
        <Table
          caption={t('latestCaption')}
          head={[t('colMsg'), t('colStatus'), t('colReason'), t('colAttempts'), t('colCreated')]}
          empty={t('noDeliveries')}
          rows={list.data.items.length}
        >
          {list.data.items.map((d) => (
            <tr key={d.msg_id}>
              <td>
                <Link to={`deliveries/${encodeURIComponent(d.msg_id)}`}>
                  <code>{d.msg_id}</code>
                </Link>
              </td>
              <td>
                <Badge status={d.status} label={statusLabel(d.status)} />
              </td>
              <td>{d.reason ? <code>{d.reason}</code> : '—'}</td>
              <td class="num">{formatNumber(d.attempts)}</td>
              <td>{formatTime(d.created_at)}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
