import { DEFAULT_LANG, type Lang } from '../errors/index.js';

/**
 * The platform answers in Simplified Chinese unless the client prefers English. We honour the
 * highest-weighted Accept-Language entry that is Chinese or English; anything else gets zh-CN.
 */
export function pickLang(acceptLanguage: string | undefined): Lang {
  if (!acceptLanguage) return DEFAULT_LANG;
  let best: { lang: Lang; q: number } | undefined;
  for (const part of acceptLanguage.split(',')) {
    const [tag = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((s) => s.trim()).find((s) => s.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!(q > 0)) continue;
    const lang: Lang | undefined = tag.startsWith('en')
      ? 'en-US'
      : tag.startsWith('zh')
        ? 'zh-CN'
        : undefined;
    if (lang && (!best || q > best.q)) best = { lang, q };
  }
  return best?.lang ?? DEFAULT_LANG;
}
