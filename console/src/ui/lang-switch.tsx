import { LANGS, type Lang, lang, setLang, translator } from '../i18n.ts';

const t = translator({ 'zh-CN': { language: '语言' }, 'en-US': { language: 'Language' } });

export function LangSwitch() {
  return (
    <select
      aria-label={t('language')}
      value={lang.value}
      onChange={(e) => setLang(e.currentTarget.value as Lang)}
    >
      {LANGS.map((l) => (
        <option key={l} value={l}>
          {l === 'zh-CN' ? '中文' : 'English'}
        </option>
      ))}
    </select>
  );
}
