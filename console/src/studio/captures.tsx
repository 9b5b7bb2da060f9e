import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { type Capture, eventOf, formatBytes, newestFirst, receivedMs } from '../capture-model.ts';
import { formatTime, lang, translator } from '../i18n.ts';
import type { TemplateUsage } from '../templates-model.ts';
import { ErrorNote, Field, Loading } from '../ui/components.tsx';
import { CaptureBody } from '../ui/pipe-captures.tsx';
import { useLoad } from '../ui/use-load.ts';

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
    tooLarge: '请求体过大，未保存',
    show: '请求体',
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
    tooLarge: 'Too large: the body was not kept',
    show: 'Body',
    use: 'Use as test data',
    render: 'Render with current template',
    rendering: 'in the preview',
  },
});

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
    () => api.get<TemplateUsage>('/admin/api/template/usage', { id: props.templateId }),
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
      <ul class="studio-capture-list">
        {newestFirst(items).map((c) => {
          const event = eventOf(c.headers);
          const active = c.id === props.activeId;
          return (
            <li key={c.id} class={active ? 'studio-capture studio-capture-active' : 'studio-capture'}>
              <div class="studio-capture-head">
                <strong>{t('received', { time: formatTime(receivedMs(c)) })}</strong>
                <span class="muted">
                  {c.content_type ?? '—'} · {formatBytes(c.size, lang.value)}
                  {event !== null && ` · ${event}`}
                </span>
                {active && <span class="badge badge-info">{t('rendering')}</span>}
              </div>
              {c.body === null ? (
                <p class="muted">{t('tooLarge')}</p>
              ) : (
                <details>
                  <summary>{t('show')}</summary>
                  <CaptureBody capture={c} />
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
          );
        })}
      </ul>
    </div>
  );
}
