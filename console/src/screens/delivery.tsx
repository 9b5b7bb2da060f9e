import { useState } from 'preact/hooks';
import { ApiError, api, session } from '../api.ts';
import { type Delivery, deliveriesPath, keepsWatching, statusLabel, UNSETTLED } from '../deliveries.ts';
import { formatNumber, formatTime, translator } from '../i18n.ts';
import type { Bot, Pipe } from '../pipe-model.ts';
import { Link } from '../router.tsx';
import { Badge, Confirm, ErrorNote, Loading, Notice, Page, useAction } from '../ui/components.tsx';
import { channelView } from '../ui/lookups.ts';
import { Timeline } from '../ui/timeline.tsx';
import { useLoad } from '../ui/use-load.ts';
import { MessageView } from '../views/message-view.tsx';
import { RenderWarnings } from '../views/render-warnings.tsx';

const t = translator({
  'zh-CN': {
    title: '消息投递',
    back: '← 投递列表',
    backToTemplates: '← 模板',
    notFound: '没有以这个 ID 记录的投递（worker 记录之后才会出现）。',
    replay: '重发',
    replayTitle: '重发这条消息？',
    replayBody:
      '消息会以同一个消息 ID 再次投递（时间线和中继的 nonce 仍然去重）。请先确认导致失败的原因已经解决。',
    replayed: '已重新排队，页面会刷新直到消息有结果。',
    watching: '处理中，每秒刷新…',
    facts: '概况',
    bot: '机器人',
    pipe: '管道',
    studioTest: '模板工作室的测试发送（无管道）',
    channel: '频道',
    attempts: '尝试次数',
    replays: '重发次数',
    accepted: '接收于',
    updated: '更新于',
    sentAt: '发送于',
    retryAt: '下次尝试',
    upstream: '上游消息 ID',
    foldedInto: '合并进',
    parts: '拆分为',
    mentions: '被中和的群组提及',
    error: '错误',
    reason: '原因',
    code: '代码',
    message: '说明',
    detail: '细节',
    sameReason: '查看同一原因的死信',
    history: '状态历史',
    rendered: '渲染后的消息',
    notRendered: '这条消息还没有渲染（发送时才会保存渲染结果）。',
    renderedDropped: '渲染结果已不再保留：发送后按保留期限（RENDERED_RETENTION_DAYS）删除，删除于 {at}。',
    renderedNotKept: '渲染结果已不再保留（这条记录没有保存它）。',
    deleted: '（已删除）',
  },
  'en-US': {
    title: 'Delivery',
    back: '← Deliveries',
    backToTemplates: '← Templates',
    notFound: 'No delivery is recorded under this id (a message appears once a worker has recorded it).',
    replay: 'Replay',
    replayTitle: 'Replay this message?',
    replayBody:
      'The message is delivered again under the same message id (the timeline and the relay nonce still de-duplicate it). Make sure what made it fail is fixed first.',
    replayed: 'Queued again: this page refreshes until the message settles.',
    watching: 'In progress, refreshing every second…',
    facts: 'Summary',
    bot: 'Bot',
    pipe: 'Pipe',
    studioTest: 'Studio test send (no pipe)',
    channel: 'Channel',
    attempts: 'Attempts',
    replays: 'Replays',
    accepted: 'Accepted',
    updated: 'Updated',
    sentAt: 'Sent',
    retryAt: 'Next try',
    upstream: 'Upstream message id',
    foldedInto: 'Carried by',
    parts: 'Sent as',
    mentions: 'Group mentions neutralised',
    error: 'Error',
    reason: 'Reason',
    code: 'Code',
    message: 'Message',
    detail: 'Detail',
    sameReason: 'Dead letters with this reason',
    history: 'Status history',
    rendered: 'Rendered message',
    notRendered: 'This message has not been rendered yet (the rendered message is kept when it is sent).',
    renderedDropped:
      'The rendered message is no longer kept: it is dropped a while after sending (RENDERED_RETENTION_DAYS); dropped {at}.',
    renderedNotKept: 'The rendered message is no longer kept (this record does not hold it).',
    deleted: ' (deleted)',
  },
});

/** While a message is on its way, its page asks again every second. */
const WATCH_MS = 1000;

export default function DeliveryScreen(props: { params: Record<string, string> }) {
  const msgId = props.params.msgId ?? '';
  // A bot developer opens only its own test sends here: no list to go back to, no replay.
  const s = session.value;
  const operator = !(s.state === 'signed-in' && s.role === 'bot');
  const backTo = operator ? 'deliveries' : 'templates';
  const [unsettled, setUnsettled] = useState(false);
  const [replayedNote, setReplayedNote] = useState(false);
  const loaded = useLoad(
    async () => {
      const { delivery } = await api.get<{ delivery: Delivery }>('/admin/api/delivery/view', {
        msg_id: msgId,
      });
      setUnsettled(keepsWatching(delivery));
      return delivery;
    },
    [msgId],
    unsettled ? WATCH_MS : undefined,
  );
  const d = loaded.data;
  const names = useLoad(async () => {
    if (!d) return null;
    const [bot, pipe, channel] = await Promise.all([
      api
        .get<{ bot: Bot }>('/admin/api/bot/view', { id: d.bot_id })
        .then((r) => r.bot)
        .catch(() => null),
      // A studio test send has no pipe (pipe_id '').
      d.pipe_id === ''
        ? null
        : api
            .get<{ pipe: Pipe }>('/admin/api/pipe/view', { id: d.pipe_id })
            .then((r) => r.pipe)
            .catch((e: unknown) => (e instanceof ApiError && e.status === 404 ? ('deleted' as const) : null)),
      channelView(d.channel_id).catch(() => null),
    ]);
    return { bot, pipe, channel };
  }, [d?.bot_id, d?.pipe_id, d?.channel_id]);
  const [asking, setAsking] = useState(false);
  const replay = useAction(async () => {
    setAsking(false);
    await api.post('/admin/api/delivery/replay', { msg_id: msgId });
    setReplayedNote(true);
    setUnsettled(true);
    loaded.reload();
  });

  if (loaded.error && !d) {
    const gone = loaded.error instanceof ApiError && loaded.error.status === 404;
    return (
      <Page title={t('title')}>
        <p>
          <Link to={backTo}>{t(operator ? 'back' : 'backToTemplates')}</Link>
        </p>
        {gone ? (
          <Notice kind="warn">{t('notFound')}</Notice>
        ) : (
          <ErrorNote error={loaded.error} onRetry={loaded.reload} />
        )}
      </Page>
    );
  }
  if (!d) return <Loading />;
  const n = names.data;
  const pipe = n?.pipe;

  return (
    <Page
      title={t('title')}
      actions={
        <>
          <Badge status={d.status} label={statusLabel(d.status)} />
          {d.status === 'failed' && operator && (
            <button type="button" disabled={replay.busy} onClick={() => setAsking(true)}>
              {t('replay')}
            </button>
          )}
        </>
      }
    >
      <p>
        <Link to={backTo}>{t(operator ? 'back' : 'backToTemplates')}</Link> · <code>{d.msg_id}</code>
      </p>
      {replay.error !== undefined && <ErrorNote error={replay.error} />}
      {loaded.error && <ErrorNote error={loaded.error} onRetry={loaded.reload} />}
      <div aria-live="polite">
        {replayedNote && UNSETTLED.has(d.status) && <Notice kind="info">{t('replayed')}</Notice>}
        {!replayedNote && UNSETTLED.has(d.status) && <p class="muted">{t('watching')}</p>}
      </div>

      <div class="delivery-columns">
        <section class="panel" aria-labelledby="delivery-facts">
          <h2 id="delivery-facts">{t('facts')}</h2>
          <dl class="facts">
            <dt>{t('bot')}</dt>
            <dd>
              <Link to={`bots/${encodeURIComponent(d.bot_id)}`}>{n?.bot?.name ?? d.bot_id}</Link>
            </dd>
            <dt>{t('pipe')}</dt>
            <dd>
              {d.pipe_id === '' ? (
                t('studioTest')
              ) : pipe === 'deleted' ? (
                <>
                  <code>{d.pipe_id}</code>
                  {t('deleted')}
                </>
              ) : (
                <Link to={`pipes/${encodeURIComponent(d.pipe_id)}`}>{pipe?.title ?? d.pipe_id}</Link>
              )}
            </dd>
            <dt>{t('channel')}</dt>
            <dd>
              {n?.channel ? (
                <Link to={`directory/${encodeURIComponent(n.channel.guild_id)}`}>#{n.channel.name}</Link>
              ) : (
                <code>{d.channel_id}</code>
              )}
            </dd>
            <dt>{t('attempts')}</dt>
            <dd>{formatNumber(d.attempts)}</dd>
            <dt>{t('replays')}</dt>
            <dd>{formatNumber(d.replays)}</dd>
            <dt>{t('accepted')}</dt>
            <dd>{formatTime(d.created_at)}</dd>
            <dt>{t('updated')}</dt>
            <dd>{formatTime(d.updated_at)}</dd>
            {d.sent_at !== null && (
              <>
                <dt>{t('sentAt')}</dt>
                <dd>{formatTime(d.sent_at)}</dd>
              </>
            )}
            {d.retry_at !== null && UNSETTLED.has(d.status) && (
              <>
                <dt>{t('retryAt')}</dt>
                <dd>{formatTime(d.retry_at)}</dd>
              </>
            )}
            {d.folded_into && (
              <>
                <dt>{t('foldedInto')}</dt>
                <dd>
                  <Link to={`deliveries/${encodeURIComponent(d.folded_into)}`}>
                    <code>{d.folded_into}</code>
                  </Link>
                </dd>
              </>
            )}
            {d.upstream_msg_id && (
              <>
                <dt>{t('upstream')}</dt>
                <dd>
                  <code>{d.upstream_msg_id}</code>
                </dd>
              </>
            )}
            {d.parts && d.parts.length > 1 && (
              <>
                <dt>{t('parts')}</dt>
                <dd>
                  <SentParts parts={d.parts} />
                </dd>
              </>
            )}
            {d.not_permissions_mention.length > 0 && (
              <>
                <dt>{t('mentions')}</dt>
                <dd>{d.not_permissions_mention.map((m) => `@${m}`).join(', ')}</dd>
              </>
            )}
          </dl>
        </section>

        {(d.reason || d.message) && (
          <section class="panel delivery-error" aria-labelledby="delivery-error">
            <h2 id="delivery-error">{t('error')}</h2>
            <dl class="facts">
              {d.reason && (
                <>
                  <dt>{t('reason')}</dt>
                  <dd>
                    <code>{d.reason}</code>
                  </dd>
                </>
              )}
              {d.code !== null && (
                <>
                  <dt>{t('code')}</dt>
                  <dd>
                    <code>{d.code}</code>
                  </dd>
                </>
              )}
              {d.message && (
                <>
                  <dt>{t('message')}</dt>
                  <dd>{d.message}</dd>
                </>
              )}
            </dl>
            {d.detail && Object.keys(d.detail).length > 0 && (
              <details>
                <summary>{t('detail')}</summary>
                <pre class="raw">{JSON.stringify(d.detail, null, 2)}</pre>
              </details>
            )}
            {d.reason && d.status === 'failed' && (
              <p>
                <Link to={deliveriesPath({ status: 'failed', reason: d.reason })}>{t('sameReason')}</Link>
              </p>
            )}
          </section>
        )}
      </div>

      <section aria-labelledby="delivery-history">
        <h2 id="delivery-history">{t('history')}</h2>
        <Timeline entries={d.history ?? []} />
      </section>

      <section aria-labelledby="delivery-rendered">
        <h2 id="delivery-rendered">{t('rendered')}</h2>
        <RenderedPart d={d} />
      </section>

      <Confirm
        open={asking}
        title={t('replayTitle')}
        confirmLabel={t('replay')}
        onCancel={() => setAsking(false)}
        onConfirm={() => void replay.run()}
      >
        <p>{t('replayBody')}</p>
      </Confirm>
    </Page>
  );
}

/**
 * The message as sent, or why there is none: not sent yet, or sent and no longer kept (the
 * retention sweep dropped it, or the record never held it).
 */
export function RenderedPart({ d }: { d: Delivery }) {
  if (d.rendered) {
    return (
      <>
        <RenderWarnings warnings={d.rendered.warnings} count={d.rendered.warning_count} />
        <MessageView message={d.rendered} />
      </>
    );
  }
  if (d.rendered_dropped_at != null) {
    return <p class="muted">{t('renderedDropped', { at: formatTime(d.rendered_dropped_at) })}</p>;
  }
  return <p class="muted">{t(d.status === 'sent' ? 'renderedNotKept' : 'notRendered')}</p>;
}

/** A message split over several (docs/pipes.md, "Messages that always fit"): each one's ids, in order. */
export function SentParts({ parts }: { parts: NonNullable<Delivery['parts']> }) {
  return (
    <ol>
      {parts.map((p) => (
        <li key={p.msg_id}>
          <code>{p.msg_id}</code>
          {p.upstream_msg_id && (
            <>
              {' → '}
              <code>{p.upstream_msg_id}</code>
            </>
          )}
        </li>
      ))}
    </ol>
  );
}
