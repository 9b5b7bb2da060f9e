import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { formatTime, translator } from '../i18n.ts';
import type { BotView, Paged } from '../ops-types.ts';
import { Link } from '../router.tsx';
import { Badge, ErrorNote, Loading, Page, Table } from '../ui/components.tsx';
import { Pager } from '../ui/pager.tsx';
import { useLoad } from '../ui/use-load.ts';

const t = translator({
  'zh-CN': {
    title: '机器人',
    create: '新建机器人',
    intimacy: '查询亲密度',
    name: '名称',
    id: 'id',
    userId: '用户 id',
    status: '状态',
    sink: '投递方式',
    score: '默认亲密度',
    images: '图片',
    updated: '更新时间',
    empty: '还没有机器人。',
    enabled: '启用',
    disabled: '停用',
    store: '存储',
    relay: '转发',
    sort: '排序',
    byName: '按名称',
    byNewest: '最新创建',
    byId: '按 id',
  },
  'en-US': {
    title: 'Bots',
    create: 'New bot',
    intimacy: 'Look up intimacy',
    name: 'Name',
    id: 'Id',
    userId: 'User id',
    status: 'Status',
    sink: 'Sink',
    score: 'Default score',
    images: 'Images',
    updated: 'Updated',
    empty: 'There are no bots yet.',
    enabled: 'enabled',
    disabled: 'disabled',
    store: 'store',
    relay: 'relay',
    sort: 'Sort',
    byName: 'By name',
    byNewest: 'Newest first',
    byId: 'By id',
  },
});

const PAGE_SIZE = 20;
const SORTS = [
  { value: 'name', key: 'byName' },
  { value: '-created_at', key: 'byNewest' },
  { value: 'id', key: 'byId' },
] as const;

export default function Bots(_props: { params: Record<string, string> }) {
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<string>('name');
  const list = useLoad(
    () => api.get<Paged<BotView>>('/admin/api/bot/list', { page, page_size: PAGE_SIZE, sort }),
    [page, sort],
  );
  return (
    <Page
      title={t('title')}
      actions={
        <>
          <Link to="intimacy" class="button secondary">
            {t('intimacy')}
          </Link>
          <Link to="bots/new" class="button">
            {t('create')}
          </Link>
        </>
      }
    >
      <div class="toolbar">
        <label class="check">
          <span>{t('sort')}</span>
          <select
            value={sort}
            onChange={(e) => {
              setSort(e.currentTarget.value);
              setPage(1);
            }}
          >
            {SORTS.map((s) => (
              <option key={s.value} value={s.value}>
                {t(s.key)}
              </option>
            ))}
          </select>
        </label>
      </div>
      {list.error && <ErrorNote error={list.error} onRetry={list.reload} />}
      {!list.data && !list.error && <Loading />}
      {list.data && (
        <>
          <Table
            caption={t('title')}
            head={[t('name'), t('id'), t('status'), t('sink'), t('score'), t('images'), t('updated')]}
            empty={t('empty')}
            rows={list.data.items.length}
          >
            {list.data.items.map((b) => (
              <tr key={b.id}>
                <td>
                  <Link to={`bots/${encodeURIComponent(b.id)}`}>{b.name}</Link>
                </td>
                <td class="mono">{b.id}</td>
                <td>
                  <Badge
                    status={b.enabled ? 'enabled' : 'disabled'}
                    label={b.enabled ? t('enabled') : t('disabled')}
                  />
                </td>
                <td>{b.sink === 'relay' ? t('relay') : t('store')}</td>
                <td>{b.default_score}</td>
                <td>{b.img_list.length}</td>
                <td>{formatTime(b.updated_at)}</td>
              </tr>
            ))}
          </Table>
          <Pager
            page={list.data.meta.page}
            pageTotal={list.data.meta.page_total}
            total={list.data.meta.total}
            onPage={setPage}
          />
        </>
      )}
    </Page>
  );
}
