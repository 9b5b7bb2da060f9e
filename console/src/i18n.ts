import { signal } from '@preact/signals';

/** The console's languages: the API's two. */
export type Lang = 'zh-CN' | 'en-US';
export const LANGS: readonly Lang[] = ['zh-CN', 'en-US'];

/** A module's messages in both languages; `{name}` marks a parameter. */
export type Messages<K extends string> = Record<Lang, Record<K, string>>;

const LANG_KEY = 'herald.lang';

function initialLang(): Lang {
  const saved = globalThis.localStorage?.getItem(LANG_KEY);
  if (saved === 'zh-CN' || saved === 'en-US') return saved;
  const nav = globalThis.navigator?.language ?? '';
  return nav.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en-US';
}

/** The chosen language; API calls send it as Accept-Language so errors come back in it too. */
export const lang = signal<Lang>(initialLang());

export function setLang(next: Lang): void {
  lang.value = next;
  // Only the language choice is kept in the browser, never a credential.
  globalThis.localStorage?.setItem(LANG_KEY, next);
  if (globalThis.document) document.documentElement.lang = next;
}

/** A translator over one module's messages, reading the current language when called. */
export function translator<K extends string>(messages: Messages<K>) {
  return (key: K, params?: Record<string, string | number>): string => {
    const text = messages[lang.value][key] ?? messages['en-US'][key] ?? key;
    if (!params) return text;
    return text.replace(/\{(\w+)\}/g, (m, name: string) =>
      params[name] === undefined ? m : String(params[name]),
    );
  };
}

/** A number or a time in the current language. */
export const formatNumber = (n: number): string => new Intl.NumberFormat(lang.value).format(n);
export const formatTime = (ms: number | null | undefined): string =>
  ms == null ? '—' : new Date(ms).toLocaleString(lang.value, { hourCycle: 'h23' });
