import { useEffect, useRef, useState } from 'preact/hooks';
import { api, askWhileUnavailable } from '../api.ts';
import {
  type Delivery,
  type DeliveryFilters,
  deliveriesPath,
  filtersFromQuery,
  filtersToApi,
  filtersToQuery,
  KNOWN_REASONS,
  type ListPage,
  localInputToMs,
  msToLocalInput,
  nextBatchLimit,
  REASON_PATTERN,
  replayBatchFilter,
  STATUS_FILTERS,
  type StatusFilter,
  statusLabel,
} from '../deliveries.ts';
import { formatNumber, formatTime, translator } from '../i18n.ts';
import type { Pipe } from '../pipe-model.ts';
import { Link, navigate, route } from '../router.tsx';
import {
  Badge,
  Confirm,
  ErrorNote,
  Field,
  Loading,
  Notice,
  Page,
  Table,
  useAction,
} from '../ui/components.tsx';
import { listAll, loadBots } from '../ui/lookups.ts';
import { Pager } from '../ui/pager.tsx';
import { useLoad } from '../ui/use-load.ts';

const t = translator({
  'zh-CN': {
    title: '投递',
    filters: '筛选',
    status: '状态',
    bot: '机器人',
    anyBot: '全部机器人',
    pipe: '管道',
    studioTest: '模板工作室的测试发送（无管道）',
    anyPipe: '全部管道',
    reason: '原因',
    reasonHint: '原因代码，例如 NO_SEND_PERMISSION',
    reasonBad: '原因代码由大写字母、数字和下划线组成',
    since: '起始时间',
    until: '截止时间',
    timeHint: '按消息接收时间筛选（本地时间）',
    apply: '应用',
    clear: '清除',
    caption: '投递列表',
    colMsg: '消息',
    colStatus: '状态',
    colBot: '机器人',
    colPipe: '管道',
    colReason: '原因',
    colAttempts: '尝试',
    colCreated: '接收于',
    colUpdated: '更新于',
    empty: '没有符合条件的投递。',
    dead: '死信',
    replayAll: '重发全部匹配的消息（{n}）',
    replayNoSelector: '批量重发需要至少选择机器人、管道或原因之一。',
    replayTimeRange: '批量重发只按机器人、管道和原因选择，不按时间：请先清除时间范围。',
    confirmTitle: '重发 {n} 条死信？',
    confirmTitleOne: '重发 1 条死信？',
    confirmBody: '将重新投递所有符合以下条件的失败消息（消息 ID 不变）：{what}。',
    confirmMore: '还有 {n} 条符合条件的死信未重发。继续重发？',
    confirmButton: '重发 {n} 条',
    replaying: '正在重发…已重发 {replayed} 条',
    stop: '停止',
    result: '已重发 {replayed} 条，跳过 {skipped} 条，剩余 {remaining} 条。',
    replayRest: '继续重发剩余的 {n} 条',
    skippedTitle: '跳过的消息',
    unreplayable: '其中 {n} 条已无法重发（重发所需的输入已过保留期被删除），重发会跳过它们。',
    resultUnreplayable: '另有 {n} 条已无法重发（输入已过期），未处理。',
  },
  'en-US': {
    title: 'Deliveries',
    filters: 'Filters',
    status: 'Status',
    bot: 'Bot',
    anyBot: 'All bots',
    pipe: 'Pipe',
    studioTest: 'Studio test send (no pipe)',
    anyPipe: 'All pipes',
    reason: 'Reason',
    reasonHint: 'A reason code, e.g. NO_SEND_PERMISSION',
    reasonBad: 'A reason code is capital letters, digits and underscores',
    since: 'Since',
    until: 'Until',
    timeHint: 'When the message was accepted (local time)',
    apply: 'Apply',
    clear: 'Clear',
    caption: 'Deliveries',
    colMsg: 'Message',
    colStatus: 'Status',
    colBot: 'Bot',
    colPipe: 'Pipe',
    colReason: 'Reason',
    colAttempts: 'Attempts',
    colCreated: 'Accepted',
    colUpdated: 'Updated',
    empty: 'No deliveries match.',
    dead: 'Dead letters',
    replayAll: 'Replay all matching ({n})',
    replayNoSelector: 'A bulk replay needs a bot, a pipe or a reason chosen.',
    replayTimeRange:
      'A bulk replay selects by bot, pipe and reason only, not by time: clear the time range first.',
    confirmTitle: 'Replay {n} dead messages?',
    confirmTitleOne: 'Replay 1 dead message?',
    confirmBody: 'Every failed message matching {what} is delivered again (under the same message id).',
    confirmMore: '{n} more matching dead messages were not replayed yet. Replay them too?',
    confirmButton: 'Replay {n}',
    replaying: 'Replaying… {replayed} replayed so far',
    stop: 'Stop',
    result: '{replayed} replayed, {skipped} skipped, {remaining} remaining.',
    replayRest: 'Replay the {n} remaining',
    skippedTitle: 'Skipped messages',
    unreplayable:
      '{n} of them can no longer be replayed (the input a replay needs has expired and was dropped); a replay passes them over.',
    resultUnreplayable: '{n} more could not be replayed any more (input expired) and were left as they are.',
  },
});

const PAGE_SIZE = 25;
/** The first page refreshes on its own; later pages stay still so rows do not shift under the reader. */
const REFRESH_MS = 5000;

export default function DeliveriesScreen(_props: { params: Record<string, string> }) {
  const filters = filtersFromQuery(route.value.query);
  const key = filtersToQuery(filters);
  const bots = useLoad(loadBots, []);
  const pipes = useLoad(
    () => listAll<Pipe>('/admin/api/pipe/list', filters.bot_id ? { bot_id: filters.bot_id } : {}),
    [filters.bot_id],
  );
  const list = useLoad(
    () => api.get<ListPage<Delivery>>('/admin/api/delivery/list', filtersToApi(filters, PAGE_SIZE)),
    [key],
    filters.page === 1 ? REFRESH_MS : undefined,
  );
  const botName = new Map((bots.data?.items ?? []).map((b) => [b.id, b.name]));
  const pipeTitle = new Map((pipes.data?.items ?? []).map((p) => [p.id, p.title]));

  return (
    <Page title={t('title')}>
      <FilterForm
        filters={filters}
        bots={bots.data?.items ?? []}
        pipes={pipes.data?.items ?? []}
        onApply={(f) => navigate(deliveriesPath({ ...f, page: 1 }))}
      />
      {bots.error && <ErrorNote error={bots.error} onRetry={bots.reload} />}
      {pipes.error && <ErrorNote error={pipes.error} onRetry={pipes.reload} />}

      {filters.status === 'failed' && list.data && (
        <DeadLetters
          filters={filters}
          total={list.data.meta.total}
          replayable={list.data.meta.replayable ?? list.data.meta.total}
          describe={(f) =>
            [
              f.bot_id && `${t('bot')} ${botName.get(f.bot_id) ?? f.bot_id}`,
              f.pipe_id && `${t('pipe')} ${pipeTitle.get(f.pipe_id) ?? f.pipe_id}`,
              f.reason && `${t('reason')} ${f.reason}`,
            ]
              .filter(Boolean)
              .join(', ')
          }
          onDone={list.reload}
        />
      )}

      {list.error && <ErrorNote error={list.error} onRetry={list.reload} />}
      {!list.data && !list.error && <Loading />}
      {list.data && (
        <>
          <Table
            caption={t('caption')}
            head={[
              t('colMsg'),
              t('colStatus'),
              t('colBot'),
              t('colPipe'),
              t('colReason'),
              t('colAttempts'),
              t('colCreated'),
              t('colUpdated'),
            ]}
            empty={t('empty')}
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
                <td>
                  <Link to={`bots/${encodeURIComponent(d.bot_id)}`}>{botName.get(d.bot_id) ?? d.bot_id}</Link>
                </td>
                <td>
                  {d.pipe_id === '' ? (
                    t('studioTest')
                  ) : (
                    <Link to={`pipes/${encodeURIComponent(d.pipe_id)}`}>
                      {pipeTitle.get(d.pipe_id) ?? d.pipe_id}
                    </Link>
                  )}
                </td>
                <td>
                  {d.reason ? (
                    <Link
                      to={deliveriesPath({ ...filters, reason: d.reason, page: 1 })}
                      aria-label={d.reason}
                    >
                      <code>{d.reason}</code>
                    </Link>
                  ) : (
                    '—'
                  )}
                </td>
                <td class="num">{formatNumber(d.attempts)}</td>
                <td>{formatTime(d.created_at)}</td>
                <td>{formatTime(d.updated_at)}</td>
              </tr>
            ))}
          </Table>
          <Pager
            page={list.data.meta.page}
            pageTotal={list.data.meta.page_total}
            total={list.data.meta.total}
            onPage={(page) => navigate(deliveriesPath({ ...filters, page }))}
          />
        </>
      )}
    </Page>
  );
}

/** The filter form: a local copy of the URL's filters, written back to the URL on Apply. */
function FilterForm(props: {
  filters: DeliveryFilters;
  bots: readonly { id: string; name: string }[];
  pipes: readonly Pipe[];
  onApply: (f: DeliveryFilters) => void;
}) {
  const f = props.filters;
  const [draft, setDraft] = useState(f);
  const [since, setSince] = useState(msToLocalInput(f.since));
  const [until, setUntil] = useState(msToLocalInput(f.until));
  const key = filtersToQuery(f);
  // Back/forward or a followed link changes the URL: the form follows it.
  useEffect(() => {
    setDraft(f);
    setSince(msToLocalInput(f.since));
    setUntil(msToLocalInput(f.until));
  }, [key]);
  const reasonBad = draft.reason !== '' && !REASON_PATTERN.test(draft.reason);
  const apply = (next: DeliveryFilters) => {
    if (next.reason !== '' && !REASON_PATTERN.test(next.reason)) return;
    props.onApply({ ...next, since: localInputToMs(since), until: localInputToMs(until) });
  };
  const botKnown = props.bots.some((b) => b.id === draft.bot_id);
  const pipeKnown = props.pipes.some((p) => p.id === draft.pipe_id);
  return (
    <form
      class="panel filter-form"
      aria-label={t('filters')}
      onSubmit={(e) => {
        e.preventDefault();
        apply(draft);
      }}
    >
      <div class="form-grid">
        <Field label={t('status')}>
          <select
            value={draft.status}
            onChange={(e) => {
              const next = { ...draft, status: e.currentTarget.value as StatusFilter };
              setDraft(next);
              apply(next);
            }}
          >
            {STATUS_FILTERS.map((s) => (
              <option key={s} value={s}>
                {statusLabel(s)}
              </option>
            ))}
          </select>
        </Field>
        <Field label={t('bot')}>
          <select
            value={draft.bot_id}
            onChange={(e) => {
              // A pipe belongs to one bot: choosing another bot clears the pipe.
              const next = { ...draft, bot_id: e.currentTarget.value, pipe_id: '' };
              setDraft(next);
              apply(next);
            }}
          >
            <option value="">{t('anyBot')}</option>
            {draft.bot_id && !botKnown && <option value={draft.bot_id}>{draft.bot_id}</option>}
            {props.bots.map((b) => (
              <option key={b.id} value={b.id}>
                {b.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label={t('pipe')}>
          <select
            value={draft.pipe_id}
            onChange={(e) => {
              const next = { ...draft, pipe_id: e.currentTarget.value };
              setDraft(next);
              apply(next);
            }}
          >
            <option value="">{t('anyPipe')}</option>
            {draft.pipe_id && !pipeKnown && <option value={draft.pipe_id}>{draft.pipe_id}</option>}
            {props.pipes.map((p) => (
              <option key={p.id} value={p.id}>
                {p.title}
              </option>
            ))}
          </select>
        </Field>
        <Field label={t('reason')} hint={reasonBad ? t('reasonBad') : t('reasonHint')}>
          <input
            list="delivery-reasons"
            value={draft.reason}
            autoComplete="off"
            spellcheck={false}
            aria-invalid={reasonBad ? true : undefined}
            onInput={(e) => setDraft({ ...draft, reason: e.currentTarget.value.trim().toUpperCase() })}
          />
        </Field>
        <datalist id="delivery-reasons">
          {KNOWN_REASONS.map((r) => (
            <option key={r} value={r} />
          ))}
        </datalist>
        <Field label={t('since')} hint={t('timeHint')}>
          <input type="datetime-local" value={since} onInput={(e) => setSince(e.currentTarget.value)} />
        </Field>
        <Field label={t('until')} hint={t('timeHint')}>
          <input type="datetime-local" value={until} onInput={(e) => setUntil(e.currentTarget.value)} />
        </Field>
      </div>
      <div class="actions">
        <button type="submit" disabled={reasonBad}>
          {t('apply')}
        </button>
        <button type="button" class="secondary" onClick={() => navigate('deliveries')}>
          {t('clear')}
        </button>
      </div>
    </form>
  );
}

interface BatchAnswer {
  replayed: string[];
  skipped: { msg_id: string; code: number; message: string }[];
  remaining: number;
  died_before: number;
}

interface Progress {
  running: boolean;
  replayed: number;
  skipped: BatchAnswer['skipped'];
  remaining: number | null;
  diedBefore: number | undefined;
  /** Matching dead messages that could not be replayed any more when the run was confirmed. */
  unreplayable: number;
}

/** How many matching dead messages a replay passes over (input expired); nothing when none. */
export function UnreplayableNote(props: { total: number; replayable: number }) {
  const n = Math.max(0, props.total - props.replayable);
  return n > 0 ? <p class="muted">{t('unreplayable', { n: formatNumber(n) })}</p> : null;
}

/**
 * "Replay all matching": a confirmation stating how many, then replay-batch calls (at most 500
 * each) until that many were handled or none remain. The first answer's died_before is sent with
 * every later call, so messages that die again during the run are not picked up again; what
 * remains after the confirmed number is offered again, with its own confirmation.
 */
function DeadLetters(props: {
  filters: DeliveryFilters;
  total: number;
  /** Of `total`, how many can still be replayed (the rest's input expired). */
  replayable: number;
  describe: (f: DeliveryFilters) => string;
  onDone: () => void;
}) {
  const selection = replayBatchFilter(props.filters);
  const [ask, setAsk] = useState<{ n: number; more: boolean } | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const stop = useRef(false);
  const key = filtersToQuery({ ...props.filters, page: 1 });
  // Another filter: the last run's report belongs to the old one.
  useEffect(() => setProgress(null), [key]);

  const run = useAction(async (confirmed: number, from: Progress | null) => {
    if (!selection.ok) return;
    stop.current = false;
    let done = 0;
    // Going on with the rest keeps the first run's died_before and its counts.
    let state: Progress = {
      running: true,
      replayed: from?.replayed ?? 0,
      skipped: from?.skipped ?? [],
      remaining: from?.remaining ?? null,
      diedBefore: from?.diedBefore,
      unreplayable: from?.unreplayable ?? Math.max(0, props.total - props.replayable),
    };
    setProgress(state);
    try {
      while (!stop.current) {
        const limit = nextBatchLimit(confirmed, done);
        if (limit === 0) break;
        const diedBefore = state.diedBefore;
        const post = () =>
          api.post<BatchAnswer>('/admin/api/delivery/replay-batch', {
            ...selection.body,
            limit,
            ...(diedBefore === undefined ? {} : { died_before: diedBefore }),
          });
        // A batch that Herald could not finish (a 503 under load) is asked again once the run's
        // died_before is known: it goes on from where it stopped, and died_before keeps it to the
        // messages dead when the run began (a first call's replays that died again are not
        // picked twice). Stop ends the waiting too.
        const answer =
          diedBefore === undefined
            ? await post()
            : await askWhileUnavailable(post, undefined, () => !stop.current);
        const handled = answer.replayed.length + answer.skipped.length;
        done += handled;
        state = {
          running: true,
          replayed: state.replayed + answer.replayed.length,
          skipped: [...state.skipped, ...answer.skipped].slice(-50),
          remaining: answer.remaining,
          diedBefore: answer.died_before,
          unreplayable: state.unreplayable,
        };
        setProgress(state);
        if (answer.remaining === 0 || handled === 0) break;
      }
    } finally {
      setProgress({ ...state, running: false });
      props.onDone();
    }
  });

  const why = !selection.ok
    ? selection.why === 'no-selector'
      ? t('replayNoSelector')
      : selection.why === 'time-range'
        ? t('replayTimeRange')
        : ''
    : '';
  const remaining = progress && !progress.running ? (progress.remaining ?? 0) : 0;
  return (
    <section class="panel dead-letters" aria-labelledby="dead-letters">
      <h2 id="dead-letters">{t('dead')}</h2>
      <div class="actions">
        <button
          type="button"
          disabled={!selection.ok || props.replayable === 0 || run.busy}
          onClick={() => setAsk({ n: props.replayable, more: false })}
        >
          {t('replayAll', { n: formatNumber(props.replayable) })}
        </button>
        {progress?.running && (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              stop.current = true;
            }}
          >
            {t('stop')}
          </button>
        )}
        {remaining > 0 && !run.busy && (
          <button type="button" class="secondary" onClick={() => setAsk({ n: remaining, more: true })}>
            {t('replayRest', { n: formatNumber(remaining) })}
          </button>
        )}
      </div>
      {why && <p class="muted">{why}</p>}
      {!progress && <UnreplayableNote total={props.total} replayable={props.replayable} />}
      <div aria-live="polite">
        {progress?.running && (
          <Notice kind="info">{t('replaying', { replayed: formatNumber(progress.replayed) })}</Notice>
        )}
        {progress && !progress.running && (
          <Notice
            kind={progress.skipped.length > 0 || remaining > 0 || progress.unreplayable > 0 ? 'warn' : 'ok'}
          >
            {t('result', {
              replayed: formatNumber(progress.replayed),
              skipped: formatNumber(progress.skipped.length),
              remaining: formatNumber(remaining),
            })}
            {progress.unreplayable > 0 &&
              ` ${t('resultUnreplayable', { n: formatNumber(progress.unreplayable) })}`}
          </Notice>
        )}
      </div>
      {progress && progress.skipped.length > 0 && (
        <details>
          <summary>{t('skippedTitle')}</summary>
          <ul>
            {progress.skipped.map((s) => (
              <li key={s.msg_id}>
                <Link to={`deliveries/${encodeURIComponent(s.msg_id)}`}>
                  <code>{s.msg_id}</code>
                </Link>{' '}
                {s.message} ({s.code})
              </li>
            ))}
          </ul>
        </details>
      )}
      {run.error !== undefined && <ErrorNote error={run.error} />}
      <Confirm
        open={ask !== null}
        title={
          ask?.more
            ? t('replayRest', { n: formatNumber(ask.n) })
            : ask?.n === 1
              ? t('confirmTitleOne')
              : t('confirmTitle', { n: formatNumber(ask?.n ?? 0) })
        }
        confirmLabel={t('confirmButton', { n: formatNumber(ask?.n ?? 0) })}
        onCancel={() => setAsk(null)}
        onConfirm={() => {
          const n = ask?.n ?? 0;
          setAsk(null);
          void run.run(n, ask?.more ? progress : null);
        }}
      >
        <p>
          {ask?.more
            ? t('confirmMore', { n: formatNumber(ask.n) })
            : t('confirmBody', { what: props.describe(props.filters) })}
        </p>
        {!ask?.more && <UnreplayableNote total={props.total} replayable={props.replayable} />}
      </Confirm>
    </section>
  );
}
