import { translator } from '../i18n.ts';
import { curlExample } from '../pipe-model.ts';
import { CopyButton } from './components.tsx';

const t = translator({
  'zh-CN': { curl: '用 curl 试一试', copy: '复制命令' },
  'en-US': { curl: 'Try it with curl', copy: 'Copy command' },
});

/** The curl command that posts `body` through a pipe URL, with its own copy button. */
export function CurlBlock(props: { url: string; body: string }) {
  const cmd = curlExample(props.url, props.body);
  return (
    <div class="curl">
      <div class="curl-head">
        <strong>{t('curl')}</strong>
        <CopyButton text={cmd} label={t('copy')} />
      </div>
      {/* Wrapped (styles.css), so a long URL needs no scrolling to be read. */}
      <pre class="raw curl-cmd">{cmd}</pre>
    </div>
  );
}
