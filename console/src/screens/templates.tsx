import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Role, session } from '../api.ts';
import type { ListPage } from '../deliveries.ts';
import { formatTime, translator } from '../i18n.ts';
import { Link, navigate, route } from '../router.tsx';
import {
  anyStatusLabel,
  BANNED_FILTERS,
  type BannedFilter,
  MAX_Q,
  msgtypeLabel,
  REVIEW_STATUSES,
  reviewStatusBadge,
  reviewStatusLabel,
  type SavedTemplate,
  SORTS,
  type SortValue,
  sortLabel,
  type TemplateFilters,
  type TemplateUsage,
  type TemplateView,
  templateFiltersFromQuery,
  templateListQuery,
  templatesPath,
  timeMs,
  usageSummary,
} from '../templates-model.ts';
import { BotPicker } from '../ui/bot-picker.tsx';
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
import { loadBots } from '../ui/lookups.ts';
import { Pager } from '../ui/pager.tsx';
import { useLoad } from '../ui/use-load.ts';

const t = translator({
  'zh-CN': {
    title: '模板',
    new: '新建模板',
    fromGallery: '从模板库开始',
    filters: '筛选',
    search: '搜索名称（不区分大小写）',
    bot: '机器人',
    allBots: '全部机器人',
    status: '审核状态',
    banned: '封禁',
    sort: '排序',
    caption: '模板列表',
    colTitle: '名称',
    colBot: '机器人',
    colFormat: '格式',
    colStatus: '审核状态',
    colBanned: '封禁',
    colUpdated: '修改于',
    colActions: '操作',
    bannedYes: '已封禁',
    bannedNo: '—',
    empty: '还没有模板。可以从模板库开始，或新建一个。',
    emptyMatch: '没有符合条件的模板。',
    duplicate: '复制',
    duplicateOf: '复制“{title}”',
    delete: '删除',
    deleteOf: '删除“{title}”',
    duplicated: '已复制为',
    deleted: '已删除“{title}”。',
    deleteTitle: '删除模板“{title}”？',
    deleteButton: '删除模板',
    usageLoading: '正在查看哪些管道和消息在使用它…',
  },
  'en-US': {
    title: 'Templates',
    new: 'New template',
    fromGallery: 'Start from the gallery',
    filters: 'Filters',
    search: 'Search titles (any case)',
    bot: 'Bot',
    allBots: 'All bots',
    status: 'Review status',
    banned: 'Banned',
    sort: 'Sort',
    caption: 'Templates',
    colTitle: 'Title',
    colBot: 'Bot',
    colFormat: 'Format',
    colStatus: 'Review status',
    colBanned: 'Banned',
    colUpdated: 'Updated',
    colActions: 'Actions',
    bannedYes: 'Banned',
    bannedNo: '—',
    empty: 'No templates yet. Start from the gallery, or create one.',
    emptyMatch: 'No templates match.',
    duplicate: 'Duplicate',
    duplicateOf: 'Duplicate “{title}”',
    delete: 'Delete',
    deleteOf: 'Delete “{title}”',
    duplicated: 'Duplicated as',
    deleted: 'Deleted “{title}”.',
    deleteTitle: 'Delete the template “{title}”?',
    deleteButton: 'Delete template',
    usageLoading: 'Looking up which pipes and messages use it…',
  },
});

const PAGE_SIZE = 20;
/** How long the search box waits after the last key before it asks (ms). */
const SEARCH_DEBOUNCE_MS = 300;

export default function TemplatesScreen(_props: { params: Record<string, string> }) {
  const s = session.value;
  const role: Role = s.state === 'signed-in' ? s.role : 'operator';
  const ownBot = s.state === 'signed-in' ? s.bot : undefined;
  const filters = templateFiltersFromQuery(route.value.query);
  const key = templatesPath(filters);
  const go = (next: Partial<TemplateFilters>, replace = false) =>
    navigate(templatesPath({ ...filters, page: 1, ...next }), replace);

  const list = useLoad(
    () =>
      api.get<ListPage<TemplateView>>(
        '/admin/api/template/list',
        templateListQuery(filters, role, PAGE_SIZE),
      ),
    [key, role],
  );
  // Bot names for the table: operators only (a bot session may not list bots, and sees its own).
  const bots = useLoad(() => (role === 'operator' ? loadBots() : Promise.resolve(null)), [role]);
  const botName = new Map((bots.data?.items ?? []).map((b) => [b.id, b.name]));

  const [copied, setCopied] = useState<TemplateView | null>(null);
  const [deleting, setDeleting] = useState<TemplateView | null>(null);
  const [deleted, setDeleted] = useState<string | null>(null);
  const duplicate = useAction(async (tpl: TemplateView) => {
    setDeleted(null);
    const answer = await api.post<SavedTemplate>('/admin/api/template/duplicate', { id: tpl.id });
    setCopied(answer.model);
    list.reload();
  });

  const newBot = role === 'bot' ? (ownBot?.id ?? '') : filters.bot_id;
  const filtered =
    filters.q !== '' ||
    filters.status !== '' ||
    filters.banned !== '' ||
    (role === 'operator' && filters.bot_id !== '');
  const head = [
    t('colTitle'),
    ...(role === 'operator' ? [t('colBot')] : []),
    t('colFormat'),
    t('colStatus'),
    t('colBanned'),
    t('colUpdated'),
    t('colActions'),
  ];

  return (
    <Page
      title={t('title')}
      actions={
        <>
          <Link to="gallery" class="button secondary">
            {t('fromGallery')}
          </Link>
          <Link
            to={newBot ? `templates/new?bot_id=${encodeURIComponent(newBot)}` : 'templates/new'}
            class="button"
          >
            {t('new')}
          </Link>
        </>
      }
    >
      <div class="filter-bar">
        <SearchBox value={filters.q} onSearch={(q) => go({ q }, true)} />
        {role === 'operator' && (
          <BotPicker
            value={filters.bot_id}
            label={t('bot')}
            emptyLabel={t('allBots')}
            onChange={(id) => go({ bot_id: id })}
          />
        )}
        <Field label={t('status')}>
          <select
            value={filters.status}
            onChange={(e) => go({ status: e.currentTarget.value as TemplateFilters['status'] })}
          >
            <option value="">{anyStatusLabel()}</option>
            {REVIEW_STATUSES.map((st) => (
              <option key={st} value={String(st)}>
                {reviewStatusLabel(st)}
              </option>
            ))}
          </select>
        </Field>
        <Field label={t('banned')}>
          <select
            value={filters.banned}
            onChange={(e) => go({ banned: e.currentTarget.value as BannedFilter })}
          >
            {BANNED_FILTERS.map((b) => (
              <option key={b.value} value={b.value}>
                {b.label()}
              </option>
            ))}
          </select>
        </Field>
        <Field label={t('sort')}>
          <select value={filters.sort} onChange={(e) => go({ sort: e.currentTarget.value as SortValue })}>
            {SORTS.map((so) => (
              <option key={so.value} value={so.value}>
                {sortLabel(so)}
              </option>
            ))}
          </select>
        </Field>
      </div>

      <div aria-live="polite">
        {copied && (
          <Notice kind="ok">
            {t('duplicated')} <Link to={`templates/${encodeURIComponent(copied.id)}`}>{copied.title}</Link>
          </Notice>
        )}
        {deleted !== null && <Notice kind="ok">{t('deleted', { title: deleted })}</Notice>}
      </div>
      {duplicate.error !== undefined && <ErrorNote error={duplicate.error} />}
      {bots.error && <ErrorNote error={bots.error} onRetry={bots.reload} />}

      {list.error && <ErrorNote error={list.error} onRetry={list.reload} />}
      {!list.data && !list.error && <Loading />}
      {list.data && (
        <>
          <Table
            caption={t('caption')}
            head={head}
            empty={filtered ? t('emptyMatch') : t('empty')}
            rows={list.data.items.length}
          >
            {list.data.items.map((tpl) => (
              <tr key={tpl.id}>
                <td>
                  <Link to={`templates/${encodeURIComponent(tpl.id)}`}>{tpl.title}</Link>
                </td>
                {role === 'operator' && (
                  <td>
                    <Link to={`bots/${encodeURIComponent(tpl.bot_id)}`}>
                      {botName.get(tpl.bot_id) ?? tpl.bot_id}
                    </Link>
                  </td>
                )}
                <td>{msgtypeLabel(tpl.msgtype)}</td>
                <td>
                  <Badge status={reviewStatusBadge(tpl.status)} label={reviewStatusLabel(tpl.status)} />
                </td>
                <td>{tpl.banned ? <Badge status="banned" label={t('bannedYes')} /> : t('bannedNo')}</td>
                <td>{formatTime(timeMs(tpl.updated_at))}</td>
                <td class="row-actions">
                  <button
                    type="button"
                    class="secondary"
                    aria-label={t('duplicateOf', { title: tpl.title })}
                    disabled={duplicate.busy}
                    onClick={() => void duplicate.run(tpl)}
                  >
                    {t('duplicate')}
                  </button>
                  <button
                    type="button"
                    class="secondary"
                    aria-label={t('deleteOf', { title: tpl.title })}
                    onClick={() => {
                      setCopied(null);
                      setDeleted(null);
                      setDeleting(tpl);
                    }}
                  >
                    {t('delete')}
                  </button>
                </td>
              </tr>
            ))}
          </Table>
          <Pager
            page={list.data.meta.page}
            pageTotal={list.data.meta.page_total}
            total={list.data.meta.total}
            onPage={(page) => navigate(templatesPath({ ...filters, page }))}
          />
        </>
      )}

      {deleting && (
        <DeleteDialog
          template={deleting}
          onCancel={() => setDeleting(null)}
          onDeleted={() => {
            setDeleted(deleting.title);
            setDeleting(null);
            list.reload();
          }}
        />
      )}
    </Page>
  );
}

/**
 * The search box: the URL follows what is typed, SEARCH_DEBOUNCE_MS after the last key (replacing
 * the history entry, so Back does not step through every letter); a URL changed otherwise (Back,
 * a link) is written back into the box.
 */
function SearchBox(props: { value: string; onSearch: (q: string) => void }) {
  const [draft, setDraft] = useState(props.value);
  const typed = useRef(props.value);
  // The latest callback: other filters may have changed while the timer ran.
  const onSearch = useRef(props.onSearch);
  onSearch.current = props.onSearch;
  useEffect(() => {
    if (props.value !== typed.current.trim()) {
      typed.current = props.value;
      setDraft(props.value);
    }
  }, [props.value]);
  useEffect(() => {
    if (draft.trim() === props.value) return;
    const timer = setTimeout(() => onSearch.current(draft.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [draft]);
  return (
    <Field label={t('search')}>
      <input
        type="search"
        value={draft}
        maxLength={MAX_Q}
        autoComplete="off"
        onInput={(e) => {
          typed.current = e.currentTarget.value;
          setDraft(e.currentTarget.value);
        }}
      />
    </Field>
  );
}

/**
 * Deleting a template: the dialog first reads which pipes use it and how many messages not yet
 * sent would fail, and says so (with the rule that messages using a deleted template can no
 * longer be sent) before the delete can be confirmed.
 */
function DeleteDialog(props: { template: TemplateView; onCancel: () => void; onDeleted: () => void }) {
  const id = props.template.id;
  const usage = useLoad(() => api.get<TemplateUsage>('/admin/api/template/usage', { id }), [id]);
  const del = useAction(async () => {
    await api.post('/admin/api/template/delete', { id });
    props.onDeleted();
  });
  const summary = usage.data ? usageSummary(usage.data) : null;
  return (
    <Confirm
      open
      title={t('deleteTitle', { title: props.template.title })}
      confirmLabel={t('deleteButton')}
      danger
      confirmDisabled={!summary || del.busy}
      onCancel={props.onCancel}
      onConfirm={() => void del.run()}
    >
      {usage.loading && !usage.data && <p class="muted">{t('usageLoading')}</p>}
      {usage.error && <ErrorNote error={usage.error} onRetry={usage.reload} />}
      {summary && (
        <div class="usage-summary">
          <p>{summary.pipes}</p>
          <p>{summary.pending}</p>
          <p>
            <strong>{summary.rule}</strong>
          </p>
        </div>
      )}
      {del.error !== undefined && <ErrorNote error={del.error} />}
    </Confirm>
  );
}
