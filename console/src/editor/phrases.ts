import { EditorState, type Extension } from '@codemirror/state';
import type { Lang } from '../i18n.ts';

/** CodeMirror's own words (screen-reader labels and announcements) in Chinese; its defaults are English. */
export const ZH_PHRASES: Readonly<Record<string, string>> = {
  'Control character': '控制字符',
  close: '关闭',
  Diagnostics: '问题',
  'No diagnostics': '没有问题',
  Completions: '补全',
  'Selection deleted': '已删除选中的内容',
  'folded code': '折叠的代码',
  to: '到',
  unfold: '展开',
};

export const phrasesFor = (lang: Lang): Extension =>
  lang === 'zh-CN' ? EditorState.phrases.of(ZH_PHRASES) : [];
