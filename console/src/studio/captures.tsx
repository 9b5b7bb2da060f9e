import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { formatNumber, formatTime, translator } from '../i18n.ts';
import { ErrorNote, Field, Loading } from '../ui/components.tsx';
import { useLoad } from '../ui/use-load.ts';

/** A pipe's inbound payload as kept by the capture (studio contract, B). */
export interface Capture {
  id: string;
  received_at: string;
  content_type: string;
  size: number;
  headers: Record<string, string>;
  /** The raw body; null when it was over 64 KB. */
  body: string | null;
  too_large: boolean;
}

interface Usage {
  pipes: { id: string; title: string }[];
  pending: number;
}

const t = translator({
  'zh-CN': {
    title: '捕获的请求',
    intro:
      '使用这个模板的管道最近收到的请求体。可以把其中一个作为测试数据，或用当前模板渲染它，看看修改是否有效。',
    noPipes: '还没有管道使用这个模板。管道收到请求后，请求体会出现在这里。',
    pipe: '管道',
    none: '这个管道还没有捕获到请求（或捕获已关闭）。',
    reload: '刷新',
    received: '{time} 收到',
    bytes: '{n} 字节',
    tooLarge: '超过 64 KB，未保存请求体',
    show: '请求体',
    headers: '请求头',
    use: '用作测试数据',
    render: '用当前模板渲染',
    rendering: '预览中',
  },
  'en-US': {
    title: 'Captured payloads',
    intro:
      'The latest bodies sent to the pipes that use this template. Take one as the test data, or render it with the current template to see whether a fix works.',
    noPipes: 'No pipe uses this template yet. Once a pipe receives requests, their bodies show here.',
    pipe: 'Pipe',
    none: 'This pipe has no captured payloads yet (or capturing is off).',
    reload: 'Refresh',
    received: 'Received {time}',
    bytes: '{n} bytes',
    tooLarge: 'Over 64 KB: the body was not kept',
    show: 'Body',
    headers: 'Headers',
    use: 'Use as test data',
    render: 'Render with current template',
    rendering: 'in the preview',
  },
});

/** The body shown in the list, cut so a 64 KB payload does not fill the page (the button takes it whole). */
const PREVIEW_CHARS = 2000;

/**
 * The captured payloads of the pipes that use a template: pick a pipe, then take a payload as
 * the test data or render it with the template as it is in the editor.
 */
export function CapturesPanel(props: {
  templateId: string;
  /** The capture the preview is rendering now, if any. */
  activeId?: string;
  onUse(body: string): void;
  onRender(capture: Capture): void;
}) {
  const usage = useLoad(
    () => api.get<Usage>('/admin/api/template/usage', { id: props.templateId }),
    [props.templateId],
  );
  const pipes = usage.data?.pipes ?? [];
  const [pipeId, setPipeId] = useState('');
  useEffect(() => {
    if (pipes.length > 0 && !pipes.some((p) => p.id === pipeId)) setPipeId(pipes[0]!.id);
  }, [usage.data]);
  return (
    <section class="panel studio-captures" aria-labelledby="studio-captures">
      <h2 id="studio-captures">{t('title')}</h2>
      <p class="muted">{t('intro')}</p>
      {usage.error && <ErrorNote error={usage.error} onRetry={usage.reload} />}
      {!usage.data && !usage.error && <Loading />}
      {usage.data && pipes.length === 0 && <p class="muted">{t('noPipes')}</p>}
      {pipes.length > 0 && (
        <>
          {pipes.length > 1 && (
            <Field label={t('pipe')}>
              <select value={pipeId} onChange={(e) => setPipeId(e.currentTarget.value)}>
                {pipes.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.title} · {p.id}
                  </option>
                ))}
              </select>
            </Field>
          )}
          {pipeId !== '' && (
            <PipeCaptures pipeId={pipeId} pipeTitle={pipes.find((p) => p.id === pipeId)?.title} {...props} />
          )}
        </>
      )}
    </section>
  );
}

function PipeCaptures(props: {
  pipeId: string;
  pipeTitle: string | undefined;
  activeId?: string;
  onUse(body: string): void;
  onRender(capture: Capture): void;
}) {
  const captures = useLoad(
    () => api.get<{ items: Capture[] }>('/admin/api/pipe/captures', { id: props.pipeId }),
    [props.pipeId],
  );
  const items = captures.data?.items ?? [];
  return (
    <div>
      <div class="section-head">
        <span class="muted">
          {t('pipe')}: {props.pipeTitle ?? props.pipeId}
        </span>
        <button type="button" class="secondary" onClick={captures.reload} disabled={captures.loading}>
          {t('reload')}
        </button>
      </div>
      {captures.error && <ErrorNote error={captures.error} onRetry={captures.reload} />}
      {captures.data && items.length === 0 && <p class="muted">{t('none')}</p>}
      <ul class="capture-list">
        {items.map((c) => (
          <li key={c.id} class={c.id === props.activeId ? 'capture capture-active' : 'capture'}>
            <div class="capture-head">
              <strong>{t('received', { time: formatTime(Date.parse(c.received_at)) })}</strong>
              <span class="muted">
                {c.content_type || '—'} · {t('bytes', { n: formatNumber(c.size) })}
              </span>
              {c.id === props.activeId && <span class="badge badge-info">{t('rendering')}</span>}
            </div>
            {c.body === null ? (
              <p class="muted">{t('tooLarge')}</p>
            ) : (
              <details>
                <summary>{t('show')}</summary>
                <pre class="msg-raw">
                  {c.body.length > PREVIEW_CHARS ? `${c.body.slice(0, PREVIEW_CHARS)}…` : c.body}
                </pre>
              </details>
            )}
            {Object.keys(c.headers).length > 0 && (
              <details>
                <summary>{t('headers')}</summary>
                <dl class="facts">
                  {Object.entries(c.headers).map(([name, value]) => (
                    <Fragment key={name}>
                      <dt>{name}</dt>
                      <dd class="mono">{value}</dd>
                    </Fragment>
                  ))}
                </dl>
              </details>
            )}
            <div class="actions">
              <button
                type="button"
                class="secondary"
                disabled={c.body === null}
                onClick={() => c.body !== null && props.onUse(c.body)}
              >
                {t('use')}
              </button>
              <button
                type="button"
                class="secondary"
                disabled={c.body === null}
                onClick={() => props.onRender(c)}
              >
                {t('render')}
              </button>
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}
