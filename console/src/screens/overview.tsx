import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { formatNumber, formatTime, lang, translator } from '../i18n.ts';
import type { BotView, MinuteCounts, OverviewData, Paged } from '../ops-types.ts';
import { agoParts, barSegments, minuteSeries } from '../overview-model.ts';
import { Link } from '../router.tsx';
import { Badge, ErrorNote, Loading, Notice, Page, Table } from '../ui/components.tsx';
import { useLoad } from '../ui/use-load.ts';

const t = translator({
  'zh-CN': {
    title: '概览',
    refresh: '刷新',
    updated: '更新于 {time}，每 5 秒自动刷新',
    noBots: '还没有机器人。',
    firstPipe: '跟着向导创建第一个管道',
    services: '服务',
    ok: '正常',
    down: '故障',
    latency: '{ms} 毫秒',
    queue: '队列',
    waiting: '等待中',
    delayed: '延迟中',
    active: '处理中',
    failedJobs: '失败的任务',
    openQueues: '打开队列浏览器',
    recent: '最近 {n} 分钟',
    sent: '已发送',
    failed: '失败（最终）',
    retried: '重试',
    chart: '每分钟的投递：最近 {n} 分钟共发送 {sent} 条，重试 {retried} 次，失败 {failed} 条',
    minute: '分钟',
    chartTable: '每分钟的投递',
    dead: '死信（按原因）',
    reason: '原因',
    count: '条数',
    noDead: '没有死信。',
    allDead: '查看全部死信',
    workers: '工作进程',
    host: '主机',
    pid: '进程号',
    concurrency: '并发',
    started: '启动于',
    lastSeen: '最近心跳',
    noWorkers: '没有看到工作进程：用 npm run start:worker 启动一个，否则消息不会被投递。',
    agoS: '{n} 秒前',
    agoM: '{n} 分钟前',
    agoH: '{n} 小时前',
  },
  'en-US': {
    title: 'Overview',
    refresh: 'Refresh',
    updated: 'Updated {time}; refreshes every 5 s',
    noBots: 'There are no bots yet.',
    firstPipe: 'Set up a first pipe with the guide',
    services: 'Services',
    ok: 'up',
    down: 'down',
    latency: '{ms} ms',
    queue: 'Queue',
    waiting: 'Waiting',
    delayed: 'Delayed',
    active: 'Active',
    failedJobs: 'Failed jobs',
    openQueues: 'Open the queue browser',
    recent: 'Last {n} minutes',
    sent: 'Sent',
    failed: 'Failed (for good)',
    retried: 'Retried',
    chart: 'Deliveries per minute: {sent} sent, {retried} retried, {failed} failed in the last {n} minutes',
    minute: 'Minute',
    chartTable: 'Deliveries per minute',
    dead: 'Dead letters by reason',
    reason: 'Reason',
    count: 'Count',
    noDead: 'No dead letters.',
    allDead: 'All dead letters',
    workers: 'Worker processes',
    host: 'Host',
    pid: 'PID',
    concurrency: 'Concurrency',
    started: 'Started',
    lastSeen: 'Last seen',
    noWorkers: 'No worker process seen: start one with npm run start:worker, or messages are not delivered.',
    agoS: '{n} s ago',
    agoM: '{n} min ago',
    agoH: '{n} h ago',
  },
});

const REFRESH_MS = 5000;

const SERVICE_NAMES: Readonly<Record<string, string>> = { redis: 'Redis', store: 'MongoDB / FerretDB' };

function ago(thenMs: number, nowMs: number): string {
  const { unit, n } = agoParts(thenMs, nowMs);
  return t(unit === 's' ? 'agoS' : unit === 'm' ? 'agoM' : 'agoH', { n });
}

const hhmm = (ms: number) =>
  new Date(ms).toLocaleTimeString(lang.value, { hour: '2-digit', minute: '2-digit', hour12: false });

function Stat(props: { label: string; value: number | string; tone?: 'bad' | 'warn' }) {
  return (
    <div class={`stat${props.tone ? ` stat-${props.tone}` : ''}`}>
      <div class="value">{typeof props.value === 'number' ? formatNumber(props.value) : props.value}</div>
      <div class="label">{props.label}</div>
    </div>
  );
}

const CHART_H = 60;
const BAR_W = 10;

/** Stacked bars, one a minute, drawn as SVG (no chart library); a hidden table says the same. */
function MinuteChart(props: { series: MinuteCounts[]; summary: string }) {
  const bars = barSegments(props.series, CHART_H);
  const first = props.series[0];
  const last = props.series[props.series.length - 1];
  return (
    <figure class="minute-chart">
      <svg
        viewBox={`0 0 ${props.series.length * BAR_W} ${CHART_H}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={props.summary}
      >
        {bars.map((segs, i) => {
          const m = props.series[i]!;
          return (
            <g key={m.at}>
              <title>{`${hhmm(m.at)} · ${t('sent')} ${m.sent} · ${t('retried')} ${m.retried} · ${t('failed')} ${m.failed}`}</title>
              <rect class="bar-bg" x={i * BAR_W + 1} y={0} width={BAR_W - 2} height={CHART_H} />
              {segs.map((s) => (
                <rect
                  key={s.kind}
                  class={`bar-${s.kind}`}
                  x={i * BAR_W + 1}
                  y={CHART_H - s.y - s.height}
                  width={BAR_W - 2}
                  height={s.height}
                />
              ))}
            </g>
          );
        })}
      </svg>
      <figcaption class="chart-axis muted">
        <span>{first ? hhmm(first.at) : ''}</span>
        <span class="chart-legend">
          <span class="key key-sent">{t('sent')}</span>
          <span class="key key-retried">{t('retried')}</span>
          <span class="key key-failed">{t('failed')}</span>
        </span>
        <span>{last ? hhmm(last.at) : ''}</span>
      </figcaption>
      <table class="sr-only">
        <caption>{t('chartTable')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('minute')}</th>
            <th scope="col">{t('sent')}</th>
            <th scope="col">{t('retried')}</th>
            <th scope="col">{t('failed')}</th>
          </tr>
        </thead>
        <tbody>
          {props.series.map((m) => (
            <tr key={m.at}>
              <th scope="row">{hhmm(m.at)}</th>
              <td>{m.sent}</td>
              <td>{m.retried}</td>
              <td>{m.failed}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

export function OverviewBody(props: { data: OverviewData; now: number }) {
  const { data, now } = props;
  const minutes = Math.max(1, Math.round(data.recent.window_s / 60));
  const series = minuteSeries(data.recent.per_minute, data.recent.window_s, now);
  const q = data.queue;
  return (
    <>
      <h2>{t('services')}</h2>
      <div class="grid">
        {Object.entries(data.services).map(([name, s]) => (
          <div class="stat" key={name}>
            <div class="value">
              <Badge status={s.ok ? 'ok' : 'down'} label={s.ok ? t('ok') : t('down')} />
            </div>
            <div class="label">
              {SERVICE_NAMES[name] ?? name}
              {s.latency_ms != null && ` · ${t('latency', { ms: formatNumber(s.latency_ms) })}`}
            </div>
          </div>
        ))}
      </div>

      <h2>{t('queue')}</h2>
      <div class="grid">
        <Stat label={t('waiting')} value={q.waiting} />
        <Stat label={t('delayed')} value={q.delayed} />
        <Stat label={t('active')} value={q.active} />
        <Stat label={t('failedJobs')} value={q.failed} tone={q.failed > 0 ? 'bad' : undefined} />
      </div>
      <p>
        <a href="/console/queues/">{t('openQueues')}</a>
      </p>

      <h2>{t('recent', { n: minutes })}</h2>
      <div class="grid">
        <Stat label={t('sent')} value={data.recent.sent} />
        <Stat
          label={t('retried')}
          value={data.recent.retried}
          tone={data.recent.retried > 0 ? 'warn' : undefined}
        />
        <Stat
          label={t('failed')}
          value={data.recent.failed}
          tone={data.recent.failed > 0 ? 'bad' : undefined}
        />
      </div>
      <MinuteChart
        series={series}
        summary={t('chart', {
          n: minutes,
          sent: data.recent.sent,
          retried: data.recent.retried,
          failed: data.recent.failed,
        })}
      />

      <h2>{t('dead')}</h2>
      <Table
        caption={t('dead')}
        head={[t('reason'), t('count')]}
        empty={t('noDead')}
        rows={data.dead_by_reason.length}
      >
        {data.dead_by_reason.map((d) => (
          <tr key={d.reason}>
            <td>
              <Link to={`deliveries?status=failed&reason=${encodeURIComponent(d.reason)}`} class="mono">
                {d.reason}
              </Link>
            </td>
            <td>{formatNumber(d.count)}</td>
          </tr>
        ))}
      </Table>
      {data.dead_by_reason.length > 0 && (
        <p>
          <Link to="deliveries?status=failed">{t('allDead')}</Link>
        </p>
      )}

      <h2>{t('workers')}</h2>
      <Table
        caption={t('workers')}
        head={[t('host'), t('pid'), t('concurrency'), t('started'), t('lastSeen')]}
        empty={t('noWorkers')}
        rows={data.workers.length}
      >
        {data.workers.map((w) => (
          <tr key={w.id}>
            <td class="mono">{w.host}</td>
            <td class="mono">{w.pid}</td>
            <td>{w.concurrency}</td>
            <td>{formatTime(w.started_at)}</td>
            <td>
              <time dateTime={new Date(w.last_seen_at).toISOString()}>{ago(w.last_seen_at, now)}</time>
            </td>
          </tr>
        ))}
      </Table>
    </>
  );
}

export default function Overview(_props: { params: Record<string, string> }) {
  const overview = useLoad(() => api.get<OverviewData>('/admin/api/overview'), [], REFRESH_MS);
  // Whether there is any bot decides the pointer to the guided first pipe; asked once.
  const bots = useLoad(() => api.get<Paged<BotView>>('/admin/api/bot/list', { page_size: 1 }), []);
  const noBots = bots.data !== undefined && bots.data.meta.total === 0;
  const [updatedAt, setUpdatedAt] = useState<number>();
  useEffect(() => {
    if (overview.data) setUpdatedAt(Date.now());
  }, [overview.data]);
  return (
    <Page
      title={t('title')}
      actions={
        <>
          {updatedAt !== undefined && (
            <span class="muted">
              {t('updated', { time: new Date(updatedAt).toLocaleTimeString(lang.value, { hour12: false }) })}
            </span>
          )}
          <button type="button" class="secondary" onClick={overview.reload} disabled={overview.loading}>
            {t('refresh')}
          </button>
        </>
      }
    >
      {noBots && (
        <Notice kind="info">
          <span>{t('noBots')}</span>
          <Link to="first-pipe">{t('firstPipe')}</Link>
        </Notice>
      )}
      {overview.error && <ErrorNote error={overview.error} onRetry={overview.reload} />}
      {overview.data ? (
        <OverviewBody data={overview.data} now={updatedAt ?? Date.now()} />
      ) : (
        !overview.error && <Loading />
      )}
    </Page>
  );
}
