import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import {
  bodyView,
  CAPTURE_DEFAULTS,
  type Capture,
  eventOf,
  formatBytes,
  headerRows,
  newestFirst,
  receivedMs,
} from '../capture-model.ts';
import { formatNumber, formatTime, lang, translator } from '../i18n.ts';
import type { Pipe } from '../pipe-model.ts';
import { Link } from '../router.tsx';
import { Badge, Confirm, CopyButton, ErrorNote, Loading, Notice, useAction } from './components.tsx';
import { useLoad } from './use-load.ts';

const t = translator({
  'zh-CN': {
    title: '捕获的请求',
    capturing: '捕获',
    on: '开启',
    off: '关闭',
    turnOn: '开启捕获',
    turnOff: '关闭捕获',
    keeps:
      '保留这个管道最近接受的 {items} 个请求（默认设置），每个请求体至多 {size}，保存 {days} 天；请求头只保留允许列表中的，从不保留 URL 和其中的访问令牌。关闭捕获会删除已保留的请求。',
    studio: '在模板工作室中打开这个管道的模板',
    offNote: '捕获已关闭：这个管道不保留请求。',
    refresh: '刷新',
    clear: '清除',
    empty: '还没有捕获到请求。向管道 URL 发送一个请求后刷新（控制台的测试消息不会被捕获）。',
    count: '已保留 {n} 个，最新的在前',
    received: '接收时间',
    contentType: '内容类型',
    size: '大小',
    event: '事件',
    msg: '消息',
    headers: '请求头',
    noHeaders: '没有允许列表中的请求头。',
    body: '请求体',
    copyBody: '复制请求体',
    noType: '（未指定）',
    tooLarge: '请求体太大，未保留（只保留了大小和请求头）。',
    emptyBody: '（空请求体）',
    notPretty: '请求体太长，按原文显示。',
    hidden: '还有 {n} 个字符未显示；复制请求体可得到完整内容。',
    offTitle: '关闭这个管道的捕获？',
    offBody: '已保留的请求会立即删除，之后接受的请求不再保留。',
    offConfirm: '关闭并删除',
    clearTitle: '清除这个管道捕获的请求？',
    clearBody: '删除已保留的请求（{n} 个）；捕获仍然开启。此操作无法撤销。',
    clearConfirm: '清除',
  },
  'en-US': {
    title: 'Captured payloads',
    capturing: 'Capturing',
    on: 'On',
    off: 'Off',
    turnOn: 'Turn capturing on',
    turnOff: 'Turn capturing off',
    keeps:
      'Keeps the last {items} payloads this pipe accepted (default settings), bodies up to {size} each, for {days} days; headers only from an allow-list, never the URL or its access token. Turning capturing off deletes what is kept.',
    studio: "Open this pipe's template in the studio",
    offNote: 'Capturing is off: this pipe keeps no payloads.',
    refresh: 'Refresh',
    clear: 'Clear',
    empty:
      "No payloads captured yet. Send one to the pipe's URL, then refresh (the console's test message is not captured).",
    count: '{n} kept, newest first',
    received: 'Received',
    contentType: 'Content type',
    size: 'Size',
    event: 'Event',
    msg: 'Message',
    headers: 'Headers',
    noHeaders: 'No allow-listed headers.',
    body: 'Body',
    copyBody: 'Copy body',
    noType: '(none)',
    tooLarge: 'Body too large to keep (only its size and headers were kept).',
    emptyBody: '(empty body)',
    notPretty: 'Body too long to lay out: shown as received.',
    hidden: '{n} more characters not shown; copy the body to get all of it.',
    offTitle: 'Turn capturing off for this pipe?',
    offBody: 'The payloads it kept are deleted at once, and it keeps none from now on.',
    offConfirm: 'Turn off and delete',
    clearTitle: "Clear this pipe's captured payloads?",
    clearBody: 'Deletes the payloads kept ({n}); capturing stays on. This cannot be undone.',
    clearConfirm: 'Clear',
  },
});

/** The body as drawn: laid-out JSON or raw text, with what was left off said. */
export function CaptureBody(props: { capture: Capture }) {
  const v = bodyView(props.capture);
  if (v.kind === 'too_large') return <Notice kind="warn">{t('tooLarge')}</Notice>;
  if (v.kind === 'empty') return <p class="muted">{t('emptyBody')}</p>;
  return (
    <>
      {v.notPretty && <p class="muted">{t('notPretty')}</p>}
      <pre class={`raw capture-body capture-${v.kind}`}>{v.text}</pre>
      {v.hidden > 0 && <p class="muted">{t('hidden', { n: formatNumber(v.hidden) })}</p>}
    </>
  );
}

/** One capture: a summary line (time, type, size, event) that opens on its headers and body. */
export function CaptureItem(props: { capture: Capture }) {
  const c = props.capture;
  const event = eventOf(c.headers);
  const rows = headerRows(c.headers);
  const at = receivedMs(c);
  return (
    <li class="capture">
      <details>
        <summary>
          <time dateTime={c.received_at}>{formatTime(at)}</time>
          {' · '}
          <code>{c.content_type ?? t('noType')}</code>
          {' · '}
          {formatBytes(c.size, lang.value)}
          {event !== null && (
            <>
              {' · '}
              <code>{event}</code>
            </>
          )}
        </summary>
        <dl class="facts">
          <dt>{t('msg')}</dt>
          <dd>
            <Link to={`deliveries/${encodeURIComponent(c.id)}`}>
              <code>{c.id}</code>
            </Link>
          </dd>
          <dt>{t('received')}</dt>
          <dd>{formatTime(at)}</dd>
          <dt>{t('contentType')}</dt>
          <dd>{c.content_type ?? t('noType')}</dd>
          <dt>{t('size')}</dt>
          <dd>
            {formatBytes(c.size, lang.value)}
            {c.size >= 1024 && ` (${formatNumber(c.size)} B)`}
          </dd>
          {event !== null && (
            <>
              <dt>{t('event')}</dt>
              <dd>{event}</dd>
            </>
          )}
        </dl>
        <h3>{t('headers')}</h3>
        {rows.length === 0 ? (
          <p class="muted">{t('noHeaders')}</p>
        ) : (
          <dl class="facts capture-headers">
            {rows.map(([name, value]) => (
              <Fragment key={name}>
                <dt>
                  <code>{name}</code>
                </dt>
                <dd>{value}</dd>
              </Fragment>
            ))}
          </dl>
        )}
        <div class="section-head">
          <h3>{t('body')}</h3>
          {c.body !== null && c.body !== '' && <CopyButton text={c.body} label={t('copyBody')} />}
        </div>
        <CaptureBody capture={c} />
      </details>
    </li>
  );
}

/** The captures, newest first, each expandable; or the empty note. */
export function CaptureList(props: { items: readonly Capture[] }) {
  if (props.items.length === 0) return <p class="muted">{t('empty')}</p>;
  return (
    <>
      <p class="muted">{t('count', { n: formatNumber(props.items.length) })}</p>
      <ul class="captures">
        {newestFirst(props.items).map((c) => (
          <CaptureItem key={c.id} capture={c} />
        ))}
      </ul>
    </>
  );
}

/** The line that says what capturing keeps (the server's defaults). */
export const keepsLine = (): string =>
  t('keeps', {
    items: formatNumber(CAPTURE_DEFAULTS.items),
    size: formatBytes(CAPTURE_DEFAULTS.maxBytes, lang.value),
    days: formatNumber(CAPTURE_DEFAULTS.ttlDays),
  });

/**
 * The pipe's capture setting and its captured payloads. Turning capturing off and clearing ask
 * first: both delete what is kept. The list loads on demand (Refresh), not on a timer: 20
 * bodies of 64 KB are too much to fetch every few seconds.
 */
export function PipeCaptures(props: { pipe: Pipe; onChanged: () => void }) {
  const { pipe } = props;
  const [confirm, setConfirm] = useState<'off' | 'clear' | null>(null);
  const list = useLoad(
    () =>
      pipe.capture
        ? api.get<{ items: Capture[] }>('/admin/api/pipe/captures', { id: pipe.id })
        : Promise.resolve({ items: [] as Capture[] }),
    [pipe.id, pipe.capture],
  );
  const setCapture = useAction(async (capture: boolean) => {
    setConfirm(null);
    await api.post('/admin/api/pipe/update', { id: pipe.id, capture });
    props.onChanged();
  });
  const clear = useAction(async () => {
    setConfirm(null);
    await api.post('/admin/api/pipe/captures/clear', { id: pipe.id });
    list.reload();
  });
  const items = list.data?.items ?? [];
  return (
    <section class="panel pipe-captures" aria-labelledby="pipe-captures">
      <div class="section-head">
        <h2 id="pipe-captures">{t('title')}</h2>
        {pipe.template_id !== null && (
          <Link to={`templates/${encodeURIComponent(pipe.template_id)}`}>{t('studio')}</Link>
        )}
      </div>
      <div class="actions">
        <span>
          {t('capturing')}:{' '}
          <Badge status={pipe.capture ? 'enabled' : 'disabled'} label={pipe.capture ? t('on') : t('off')} />
        </span>
        <button
          type="button"
          class="secondary"
          disabled={setCapture.busy}
          onClick={() => (pipe.capture ? setConfirm('off') : void setCapture.run(true))}
        >
          {pipe.capture ? t('turnOff') : t('turnOn')}
        </button>
        {pipe.capture && (
          <>
            <button type="button" class="secondary" disabled={list.loading} onClick={list.reload}>
              {t('refresh')}
            </button>
            <button
              type="button"
              class="danger"
              disabled={clear.busy || items.length === 0}
              onClick={() => setConfirm('clear')}
            >
              {t('clear')}
            </button>
          </>
        )}
      </div>
      <p class="field-hint">{keepsLine()}</p>
      {setCapture.error !== undefined && <ErrorNote error={setCapture.error} />}
      {clear.error !== undefined && <ErrorNote error={clear.error} />}
      {!pipe.capture ? (
        <Notice kind="info">{t('offNote')}</Notice>
      ) : list.error ? (
        <ErrorNote error={list.error} onRetry={list.reload} />
      ) : list.data ? (
        <CaptureList items={items} />
      ) : (
        <Loading />
      )}
      {pipe.capture && (
        <>
          <Confirm
            open={confirm === 'off'}
            title={t('offTitle')}
            confirmLabel={t('offConfirm')}
            danger
            onCancel={() => setConfirm(null)}
            onConfirm={() => void setCapture.run(false)}
          >
            <p>{t('offBody')}</p>
          </Confirm>
          <Confirm
            open={confirm === 'clear'}
            title={t('clearTitle')}
            confirmLabel={t('clearConfirm')}
            danger
            onCancel={() => setConfirm(null)}
            onConfirm={() => void clear.run()}
          >
            <p>{t('clearBody', { n: formatNumber(items.length) })}</p>
          </Confirm>
        </>
      )}
    </section>
  );
}
