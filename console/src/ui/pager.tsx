import { formatNumber, translator } from '../i18n.ts';

const t = translator({
  'zh-CN': {
    pages: '分页',
    prev: '上一页',
    next: '下一页',
    where: '第 {page} / {pages} 页，共 {total} 条',
  },
  'en-US': {
    pages: 'Pages',
    prev: 'Previous',
    next: 'Next',
    where: 'Page {page} of {pages}, {total} in all',
  },
});

/** Previous / next over a paged list, with where the reader is. Nothing when there is one page. */
export function Pager(props: {
  page: number;
  pageTotal: number;
  total: number;
  onPage: (page: number) => void;
}) {
  const { page, pageTotal, total } = props;
  if (pageTotal <= 1 && page <= 1) return null;
  return (
    <nav class="pager" aria-label={t('pages')}>
      <button type="button" class="secondary" disabled={page <= 1} onClick={() => props.onPage(page - 1)}>
        {t('prev')}
      </button>
      <span class="muted">
        {t('where', {
          page: formatNumber(page),
          pages: formatNumber(Math.max(pageTotal, 1)),
          total: formatNumber(total),
        })}
      </span>
      <button
        type="button"
        class="secondary"
        disabled={page >= pageTotal}
        onClick={() => props.onPage(page + 1)}
      >
        {t('next')}
      </button>
    </nav>
  );
}
