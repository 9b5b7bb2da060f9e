import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { type GalleryItem, groupBySender } from '../gallery-model.ts';
import { formatNumber, translator } from '../i18n.ts';
import { Link } from '../router.tsx';
import { msgtypeLabel } from '../templates-model.ts';
import { ErrorNote, Field, Loading, Page } from '../ui/components.tsx';
import { useLoad } from '../ui/use-load.ts';

const t = translator({
  'zh-CN': {
    title: '模板库',
    lead: '为常见的发送方准备好的模板，附带真实形状的示例数据。打开一个查看效果，再复制到你的机器人的模板中。',
    search: '搜索',
    searchHint: '按名称、事件、说明或发送方查找',
    none: '模板库是空的。',
    noMatch: '没有符合“{q}”的模板。',
    samples: '{n} 个示例',
    oneSample: '1 个示例',
    event: '事件',
    format: '格式',
  },
  'en-US': {
    title: 'Gallery',
    lead: 'Ready templates for common senders, with real-shaped sample payloads. Open one to see it drawn, then copy it into your bot’s templates.',
    search: 'Search',
    searchHint: 'By title, event, description or sender',
    none: 'The gallery is empty.',
    noMatch: 'No template matches “{q}”.',
    samples: '{n} samples',
    oneSample: '1 sample',
    event: 'Event',
    format: 'Format',
  },
});

/** The built-in templates grouped by sender, with a search over them (in the page: the list is small). */
export default function GalleryScreen(_props: { params: Record<string, string> }) {
  const list = useLoad(() => api.get<{ items: GalleryItem[] }>('/admin/api/gallery/list'), []);
  const [q, setQ] = useState('');
  const items = list.data?.items ?? [];
  const groups = groupBySender(items, q);
  return (
    <Page title={t('title')}>
      <p class="lead">{t('lead')}</p>
      <div class="filter-bar">
        <Field label={t('search')} hint={t('searchHint')}>
          <input type="search" value={q} autoComplete="off" onInput={(e) => setQ(e.currentTarget.value)} />
        </Field>
      </div>
      {list.error && <ErrorNote error={list.error} onRetry={list.reload} />}
      {!list.data && !list.error && <Loading />}
      {list.data && (
        <div aria-live="polite">
          {groups.length === 0 && (
            <p class="muted">{items.length === 0 ? t('none') : t('noMatch', { q: q.trim() })}</p>
          )}
          {groups.map((g) => (
            <section key={g.sender} class="gallery-group" aria-labelledby={`gallery-${g.sender}`}>
              <h2 id={`gallery-${g.sender}`}>{g.label}</h2>
              <ul class="gallery-items">
                {g.items.map((item) => (
                  <li key={item.id} class="panel gallery-item">
                    <Link to={`gallery/${encodeURIComponent(item.id)}`} class="gallery-title">
                      {item.title}
                    </Link>
                    <p>{item.description}</p>
                    <p class="muted">
                      {t('event')}: <code>{item.event}</code> · {t('format')}: {msgtypeLabel(item.msgtype)} ·{' '}
                      {item.samples.length === 1
                        ? t('oneSample')
                        : t('samples', { n: formatNumber(item.samples.length) })}
                    </p>
                  </li>
                ))}
              </ul>
            </section>
          ))}
        </div>
      )}
    </Page>
  );
}
