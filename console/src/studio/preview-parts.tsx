import { useMemo } from 'preact/hooks';
import { type Capture, receivedMs } from '../capture-model.ts';
import { formatTime, translator } from '../i18n.ts';
import { ErrorNote } from '../ui/components.tsx';
import type { RenderedMessage } from '../views/message-view.tsx';
import { limitWarningText, messageLimitWarnings } from './card-limits.ts';
import { markerOf, type OutputError, outputErrorOf } from './render-errors.ts';

/* The parts of the studio's preview around the drawn message: what it renders, its errors, the limits. */

const t = translator({
  'zh-CN': {
    previewOf: '用测试数据渲染',
    previewOfCapture: '用 {time} 捕获的请求渲染',
    backToTestData: '改回测试数据',
    stale: '下面是上一次成功的渲染结果。',
    templateError: '模板有错误（已在编辑器中标出）：',
    outputError: '渲染结果不是合法的卡片：',
    outputAt: '渲染结果第 {line} 行第 {column} 列：',
    limits: '接近平台的限制',
  },
  'en-US': {
    previewOf: 'Rendered with the test data',
    previewOfCapture: 'Rendered with the payload captured {time}',
    backToTestData: 'Back to the test data',
    stale: 'Below is the last render that worked.',
    templateError: 'The template has an error (marked in the editor):',
    outputError: 'The rendered output is not a valid card:',
    outputAt: 'Rendered output, line {line}, column {column}:',
    limits: 'Near the platform’s limits',
  },
});

/** What the preview renders: the test data, or a captured payload. */
export type Source = { kind: 'test' } | { kind: 'capture'; capture: Capture };

export function PreviewSource(props: { source: Source; onBack(): void }) {
  if (props.source.kind === 'test') return <p class="muted studio-source">{t('previewOf')}</p>;
  return (
    <div class="notice info studio-source">
      <span>{t('previewOfCapture', { time: formatTime(receivedMs(props.source.capture)) })}</span>{' '}
      <button type="button" class="link" onClick={props.onBack}>
        {t('backToTestData')}
      </button>
    </div>
  );
}

/** The newest render's error, where it belongs: template errors also mark the editor. */
export function PreviewError(props: { error: unknown; hasMessage: boolean }) {
  const { error } = props;
  if (error === undefined) return null;
  const stale = props.hasMessage ? <p class="muted">{t('stale')}</p> : null;
  if (markerOf(error)) {
    return (
      <div class="studio-error" role="alert">
        <p>{t('templateError')}</p>
        <ErrorNote error={error} />
        {stale}
      </div>
    );
  }
  const output: OutputError | null = outputErrorOf(error);
  if (output) {
    return (
      <div class="studio-error" role="alert">
        <p>{t('outputError')}</p>
        <ErrorNote error={error} />
        {output.excerpt !== undefined && (
          <figure class="studio-excerpt">
            {output.line !== undefined && (
              <figcaption class="muted">
                {t('outputAt', { line: output.line, column: output.column ?? 1 })}
              </figcaption>
            )}
            <pre class="msg-raw">{output.excerpt}</pre>
          </figure>
        )}
        {stale}
      </div>
    );
  }
  return (
    <div class="studio-error">
      <ErrorNote error={error} />
      {stale}
    </div>
  );
}

export function LimitWarnings(props: { message: RenderedMessage }) {
  const warnings = useMemo(() => messageLimitWarnings(props.message), [props.message]);
  if (warnings.length === 0) return null;
  return (
    <div class="notice warn studio-limits" role="status">
      <strong>{t('limits')}</strong>
      <ul>
        {warnings.map((w) => (
          <li key={`${w.kind}${w.path}`}>{limitWarningText(w)}</li>
        ))}
      </ul>
    </div>
  );
}
