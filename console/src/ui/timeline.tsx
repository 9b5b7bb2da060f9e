import { type HistoryEntry, statusLabel } from '../deliveries.ts';
import { formatTime, translator } from '../i18n.ts';
import { Badge } from './components.tsx';

const t = translator({
  'zh-CN': {
    noHistory: '还没有记录状态变化。',
    attempt: '第 {n} 次尝试',
    until: '等到 {time}',
  },
  'en-US': {
    noHistory: 'No status changes recorded yet.',
    attempt: 'attempt {n}',
    until: 'until {time}',
  },
});

/** A delivery's status history, in the order recorded (oldest first), as a vertical timeline. */
export function Timeline(props: { entries: readonly HistoryEntry[] }) {
  if (props.entries.length === 0) return <p class="muted">{t('noHistory')}</p>;
  return (
    <ol class="timeline">
      {props.entries.map((e, i) => (
        <li key={`${e.at}-${i}`} class="timeline-item">
          <time dateTime={new Date(e.at).toISOString()}>{formatTime(e.at)}</time>
          <div class="timeline-body">
            <Badge status={e.status} label={statusLabel(e.status)} />
            {e.attempt != null && <span class="muted"> {t('attempt', { n: e.attempt })}</span>}
            {e.reason && (
              <>
                {' '}
                <code>{e.reason}</code>
              </>
            )}
            {e.code != null && <span class="muted"> ({e.code})</span>}
            {e.retry_at != null && (
              <span class="muted"> · {t('until', { time: formatTime(e.retry_at) })}</span>
            )}
          </div>
        </li>
      ))}
    </ol>
  );
}
