import { translator } from '../i18n.ts';
import type { RenderWarning } from './message-view.tsx';

const t = translator({
  'zh-CN': {
    title: '渲染警告（PHP 也会显示警告并照常渲染，消息按 PHP Twig 的结果发送）：',
    inEditor: '已在编辑器中标出。',
    at: '第 {line} 行第 {column} 列：{message}',
    more: '另有 {n} 条未列出。',
  },
  'en-US': {
    title: 'Render warnings (PHP warns too and renders on: the message is what PHP Twig renders):',
    inEditor: 'Marked in the editor.',
    at: 'Line {line}, column {column}: {message}',
    more: '{n} more not listed.',
  },
});

/**
 * The PHP warnings a render went past (an array printed, a numeric-leading string in
 * arithmetic), with their place in the template; `count` is how many there were in all (the
 * server keeps the first few). Nothing when there were none.
 */
export function RenderWarnings(props: {
  warnings: readonly RenderWarning[] | undefined;
  count: number | undefined;
  inEditor?: boolean;
}) {
  const warnings = props.warnings ?? [];
  if (warnings.length === 0) return null;
  const more = Math.max(0, (props.count ?? warnings.length) - warnings.length);
  return (
    <div class="notice warn render-warnings" role="status">
      <p>
        {t('title')}
        {props.inEditor ? ` ${t('inEditor')}` : ''}
      </p>
      <ul>
        {warnings.map((w, i) => (
          // Warnings have no id; their order is the render's.
          <li key={i}>{t('at', { line: w.line, column: w.column, message: w.message })}</li>
        ))}
      </ul>
      {more > 0 && <p class="muted">{t('more', { n: more })}</p>}
    </div>
  );
}
