import { translator } from '../i18n.ts';
import { curlExample } from '../pipe-model.ts';
import { CopyButton } from './components.tsx';

const t = translator({
  'zh-CN': { curl: '用 curl 试一试', copy: '复制命令' },
  'en-US': { curl: 'Try it with curl', copy: 'Copy command' },
});

/** A titled block of text to paste elsewhere (a command, a config), with its own copy button. */
export function CopyBlock(props: { title: string; copyLabel: string; text: string }) {
  return (
    <div class="curl">
      <div class="curl-head">
        <strong>{props.title}</strong>
        <CopyButton text={props.text} label={props.copyLabel} />
      </div>
      {/* Wrapped (styles.css), so a long URL needs no scrolling to be read. */}
      <pre class="raw curl-cmd">{props.text}</pre>
    </div>
  );
}

/** The curl command that posts `body` through a pipe URL, with its own copy button. */
export const CurlBlock = (props: { url: string; body: string }) => (
  <CopyBlock title={t('curl')} copyLabel={t('copy')} text={curlExample(props.url, props.body)} />
);
