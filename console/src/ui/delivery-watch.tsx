import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api.ts';
import { type Delivery, statusLabel, UNSETTLED } from '../deliveries.ts';
import { translator } from '../i18n.ts';
import { Link } from '../router.tsx';
import { Badge, ErrorNote } from './components.tsx';

const t = translator({
  'zh-CN': {
    waiting: '等待处理',
    open: '查看投递详情',
    stopped: '仍未完成：打开详情页查看后续。',
    reason: '原因：{reason}',
  },
  'en-US': {
    waiting: 'Waiting for a worker',
    open: 'Open the delivery',
    stopped: 'Still not settled: open the delivery page to follow it.',
    reason: 'Reason: {reason}',
  },
});

/** How long a watch keeps asking (a message waiting for a worker, or in a rate limit wait). */
const WATCH_MS = 120_000;
const EVERY_MS = 1000;

/**
 * A just-sent message's status, asked every second until it settles (sent or failed), with a link
 * to its page. Before a worker has recorded it, delivery/view answers 404: shown as waiting.
 */
export function DeliveryWatch(props: { msgId: string }) {
  const [delivery, setDelivery] = useState<Delivery | null>(null);
  const [error, setError] = useState<unknown>();
  const [gaveUp, setGaveUp] = useState(false);
  useEffect(() => {
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const started = Date.now();
    setDelivery(null);
    setGaveUp(false);
    const tick = async () => {
      let settled = false;
      try {
        const d = (await api.get<{ delivery: Delivery }>('/admin/api/delivery/view', { msg_id: props.msgId }))
          .delivery;
        if (stop) return;
        setDelivery(d);
        setError(undefined);
        settled = !UNSETTLED.has(d.status);
      } catch (e) {
        if (stop) return;
        if (!(e instanceof ApiError && e.status === 404)) setError(e);
      }
      if (settled) return;
      if (Date.now() - started > WATCH_MS) {
        setGaveUp(true);
        return;
      }
      timer = setTimeout(tick, EVERY_MS);
    };
    void tick();
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [props.msgId]);
  return (
    <div class="delivery-watch" aria-live="polite">
      {delivery ? (
        <Badge status={delivery.status} label={statusLabel(delivery.status)} />
      ) : (
        <Badge status="queued" label={t('waiting')} />
      )}{' '}
      <code>{props.msgId}</code> <Link to={`deliveries/${encodeURIComponent(props.msgId)}`}>{t('open')}</Link>
      {delivery?.reason && delivery.status === 'failed' && (
        <p class="muted">
          {t('reason', { reason: delivery.reason })}
          {delivery.message ? `: ${delivery.message}` : ''}
        </p>
      )}
      {gaveUp && <p class="muted">{t('stopped')}</p>}
      {error !== undefined && <ErrorNote error={error} />}
    </div>
  );
}
