import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { ListPage } from '../deliveries.ts';
import { formatNumber, translator } from '../i18n.ts';
import { handOver } from '../issued.ts';
import type { Pipe } from '../pipe-model.ts';
import { Link, navigate, route } from '../router.tsx';
import { Badge, ErrorNote, Field, Loading, Notice, Page, Table } from '../ui/components.tsx';
import { channelNames, loadBots, loadTemplates, mapLimit } from '../ui/lookups.ts';
import { Pager } from '../ui/pager.tsx';
import { PipeCreate } from '../ui/pipe-create.tsx';
import { useLoad } from '../ui/use-load.ts';

const t = translator({
  'zh-CN': {
    title: '管道',
    new: '新建管道',
    firstPipe: '引导创建第一个管道',
    connect: '接入发送方',
    bot: '机器人',
    allBots: '全部机器人',
    caption: '管道列表',
    colTitle: '名称',
    colBot: '机器人',
    colChannel: '频道',
    colFormat: '格式',
    colState: '状态',
    colRate: '速率（突发 / 每秒）',
    empty: '还没有管道。',
    plain: '纯文本',
    template: '模板',
    enabled: '启用',
    disabled: '停用',
    truncatedBots: '机器人太多，筛选列表只显示了一部分。',
  },
  'en-US': {
    title: 'Pipes',
    new: 'New pipe',
    firstPipe: 'Guided first pipe',
    connect: 'Connect a sender',
    bot: 'Bot',
    allBots: 'All bots',
    caption: 'Pipes',
    colTitle: 'Title',
    colBot: 'Bot',
    colChannel: 'Channel',
    colFormat: 'Format',
    colState: 'State',
    colRate: 'Rate (burst / per s)',
    empty: 'No pipes yet.',
    plain: 'Plain',
    template: 'Template',
    enabled: 'Enabled',
    disabled: 'Disabled',
    truncatedBots: 'There are many bots: the filter lists only some.',
  },
});

const PAGE_SIZE = 20;

/** The pipe list's state in the console URL: `pipes?bot_id=&page=` (ids only). */
function listQuery(botId: string, page: number): string {
  const q = new URLSearchParams();
  if (botId) q.set('bot_id', botId);
  if (page > 1) q.set('page', String(page));
  const s = q.toString();
  return s ? `pipes?${s}` : 'pipes';
}

export default function PipesScreen(_props: { params: Record<string, string> }) {
  const query = route.value.query;
  const botId = query.get('bot_id') ?? '';
  const page = Math.max(1, Number(query.get('page')) || 1);
  const [creating, setCreating] = useState(false);

  const bots = useLoad(loadBots, []);
  const list = useLoad(
    () =>
      api.get<ListPage<Pipe>>('/admin/api/pipe/list', {
        bot_id: botId || undefined,
        page,
        page_size: PAGE_SIZE,
        sort: '-created_at',
      }),
    [botId, page],
  );
  // Names for the ids in the table: channels by their guild, template titles by their bot.
  const names = useLoad(async () => {
    const items = list.data?.items ?? [];
    const channels = await channelNames(items.map((p) => p.guild_id));
    const withTemplates = [...new Set(items.filter((p) => p.template_id).map((p) => p.bot_id))];
    const lists = await mapLimit(withTemplates, 4, (id) => loadTemplates(id).catch(() => null));
    const templates = new Map<string, string>();
    for (const l of lists) for (const tpl of l?.items ?? []) templates.set(tpl.id, tpl.title);
    return { channels, templates };
  }, [list.data]);

  const botName = new Map((bots.data?.items ?? []).map((b) => [b.id, b.name]));

  return (
    <Page
      title={t('title')}
      actions={
        <>
          <Link to="first-pipe" class="button secondary">
            {t('firstPipe')}
          </Link>
          <Link to="connect" class="button secondary">
            {t('connect')}
          </Link>
          <button type="button" onClick={() => setCreating(true)} disabled={creating}>
            {t('new')}
          </button>
        </>
      }
    >
      {creating &&
        (bots.data ? (
          <PipeCreate
            bots={bots.data.items}
            onCancel={() => setCreating(false)}
            onCreated={(c) => {
              handOver(c.pipe.id, { access_token: c.access_token, url: c.url });
              navigate(`pipes/${encodeURIComponent(c.pipe.id)}`);
            }}
          />
        ) : bots.error ? (
          <ErrorNote error={bots.error} onRetry={bots.reload} />
        ) : (
          <Loading />
        ))}

      <div class="filter-bar">
        <Field label={t('bot')}>
          <select value={botId} onChange={(e) => navigate(listQuery(e.currentTarget.value, 1))}>
            <option value="">{t('allBots')}</option>
            {botId && !botName.has(botId) && <option value={botId}>{botId}</option>}
            {bots.data?.items.map((b) => (
              <option key={b.id} value={b.id}>
                {b.name}
              </option>
            ))}
          </select>
        </Field>
      </div>
      {bots.data?.truncated && <Notice kind="warn">{t('truncatedBots')}</Notice>}

      {list.error && <ErrorNote error={list.error} onRetry={list.reload} />}
      {!list.data && !list.error && <Loading />}
      {list.data && (
        <>
          <Table
            caption={t('caption')}
            head={[t('colTitle'), t('colBot'), t('colChannel'), t('colFormat'), t('colState'), t('colRate')]}
            empty={t('empty')}
            rows={list.data.items.length}
          >
            {list.data.items.map((p) => {
              const channel = names.data?.channels.get(p.channel_id);
              return (
                <tr key={p.id}>
                  <td>
                    <Link to={`pipes/${encodeURIComponent(p.id)}`}>{p.title}</Link>
                  </td>
                  <td>
                    <Link to={`bots/${encodeURIComponent(p.bot_id)}`}>
                      {botName.get(p.bot_id) ?? p.bot_id}
                    </Link>
                  </td>
                  <td>
                    <Link to={`directory/${encodeURIComponent(p.guild_id)}`}>
                      {channel ? `#${channel.name}` : p.channel_id}
                    </Link>
                  </td>
                  <td>
                    {p.template_id === null
                      ? t('plain')
                      : `${t('template')}: ${names.data?.templates.get(p.template_id) ?? p.template_id}`}
                  </td>
                  <td>
                    <Badge
                      status={p.enabled ? 'enabled' : 'disabled'}
                      label={p.enabled ? t('enabled') : t('disabled')}
                    />
                  </td>
                  <td class="num">
                    {formatNumber(p.rate_limit_in_force.capacity)} /{' '}
                    {formatNumber(p.rate_limit_in_force.per_second)}
                  </td>
                </tr>
              );
            })}
          </Table>
          <Pager
            page={list.data.meta.page}
            pageTotal={list.data.meta.page_total}
            total={list.data.meta.total}
            onPage={(n) => navigate(listQuery(botId, n))}
          />
        </>
      )}
    </Page>
  );
}
