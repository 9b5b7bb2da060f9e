import { formatNumber, translator } from '../i18n.ts';
import type { PageMeta } from '../ops-types.ts';

const t = translator({
  'zh-CN': {
    prev: '上一页',
    next: '下一页',
    where: '第 {page} / {pages} 页，共 {total} 项',
    paging: '分页',
  },
  'en-US': {
    prev: 'Previous',
    next: 'Next',
    where: 'Page {page} of {pages}, {total} in all',
    paging: 'Pages',
  },
});

/** Previous / next buttons under a list, with where the list stands. */
export function Pager(props: { meta: PageMeta | undefined; onPage: (page: number) => void }) {
  const m = props.meta;
  if (!m || m.page_total <= 1) return null;
  return (
    <nav class="pager" aria-label={t('paging')}>
      <button type="button" class="secondary" disabled={m.page <= 1} onClick={() => props.onPage(m.page - 1)}>
        {t('prev')}
      </button>
      <span class="muted">
        {t('where', { page: m.page, pages: m.page_total, total: formatNumber(m.total) })}
      </span>
      <button
        type="button"
        class="secondary"
        disabled={m.page >= m.page_total}
        onClick={() => props.onPage(m.page + 1)}
      >
        {t('next')}
      </button>
    </nav>
  );
}
