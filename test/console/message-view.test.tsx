import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lang } from '../../console/src/i18n.ts';
import { MessageView } from '../../console/src/views/message-view.tsx';
import { countClass, html, tags, textOf } from './html.ts';

const NOW = Date.UTC(2030, 0, 1);
const CARDS = [
  {
    type: 'card',
    theme: 'success',
    modules: [
      { type: 'header', text: 'Build passed' },
      { type: 'countdown', mode: 'second', endTime: NOW + 30_000 },
    ],
  },
];

beforeEach(() => {
  lang.value = 'en-US';
});
afterEach(() => {
  lang.value = 'en-US';
});

describe('MessageView', () => {
  it('draws KMarkdown (type 9, and a template’s type 1) as formatted text with a Raw toggle', () => {
    for (const type of [9, 1]) {
      const out = html(<MessageView message={{ type, content: '**hi** (met)all(met)' }} />);
      expect(tags(out)).toEqual([
        'div.msg-view.msg-view-kmarkdown',
        'div.msg-view-bar',
        'span.msg-view-kind',
        'button.secondary.msg-view-toggle',
        'div.msg-drawn',
        'div.kmd',
        'p.kmd-p',
        'strong',
        'span.kmd-mention.kmd-mention-all',
      ]);
      expect(out).toContain(
        '<button type="button" class="secondary msg-view-toggle" title="Show the raw text">Raw</button>',
      );
      expect(textOf(out)).toBe('KMarkdown messageRawhi @all');
    }
  });

  it('shows the raw KMarkdown when switched to raw', () => {
    const out = html(<MessageView message={{ type: 9, content: '**hi** <b>' }} raw />);
    expect(out).toContain('<pre class="msg-raw">**hi** &lt;b></pre>');
    expect(out).toContain('title="Show the message as drawn">Drawn</button>');
    expect(countClass(out, 'msg-drawn')).toBe(0);
  });

  it('draws a card message (type 10) with its modules, at the given time', () => {
    const out = html(<MessageView message={{ type: 10, content: JSON.stringify(CARDS) }} now={NOW} />);
    expect(out).toContain('<div class="msg-view msg-view-card">');
    expect(out).toContain(
      '<div class="msg-drawn"><div class="kcards"><div class="kcard kcard-theme-success kcard-size-lg">',
    );
    expect(out).toContain('<h3 class="kcard-header"><span class="kcard-plain">Build passed</span></h3>');
    expect(out).toContain('>30 s</time>');
    expect(textOf(out).startsWith('Card messageRaw')).toBe(true);
  });

  it('shows a card message raw as indented JSON', () => {
    const out = html(<MessageView message={{ type: 10, content: JSON.stringify(CARDS) }} raw />);
    const raw = /<pre class="msg-raw">(.*)<\/pre>/s.exec(out)?.[1];
    expect(raw).toBeDefined();
    expect(textOf(raw!)).toBe(JSON.stringify(CARDS, null, 2));
    expect(countClass(out, 'kcards')).toBe(0);
  });

  it('shows content that is not JSON as raw text with a notice, and no toggle', () => {
    const content = '[{"type": "card", "modules": [}';
    const out = html(<MessageView message={{ type: 10, content }} />);
    expect(tags(out)).toEqual(['div.msg-view', 'div.notice.warn.msg-view-notice', 'pre.msg-raw']);
    expect(out).toContain('role="status"');
    expect(textOf(out)).toMatch(/^The content cannot be read as a card message \(.+\); shown as raw text\./);
    expect(textOf(/<pre class="msg-raw">(.*)<\/pre>/s.exec(out)![1]!)).toBe(content);
    expect(out).not.toContain('<button');
  });

  it('shows JSON that is not a list of cards as raw text with a notice', () => {
    for (const content of ['{"type":"card","modules":[]}', '"text"', '42', 'null']) {
      const out = html(<MessageView message={{ type: 10, content }} />);
      expect(textOf(out), content).toContain('(not a JSON array)');
      expect(out, content).toContain('<pre class="msg-raw">');
    }
  });

  it('shows an unknown message type as raw text with a notice', () => {
    const out = html(<MessageView message={{ type: 2, content: '<script>alert(1)</script>' }} />);
    expect(textOf(out)).toBe('Message type 2 is not drawn; shown as raw text.<script>alert(1)</script>');
    expect(out).not.toContain('<script');
  });

  it('survives content that is not a string', () => {
    const out = html(<MessageView message={{ type: 9, content: undefined as unknown as string }} />);
    expect(out).toContain('<div class="kmd"></div>');
  });

  it('draws hostile card content inert and keeps the toggle', () => {
    const content = JSON.stringify([
      {
        type: 'card',
        modules: [
          { type: 'section', text: { type: 'kmarkdown', content: '[x](javascript:alert(1)) <script>' } },
          { type: 'container', elements: [{ type: 'image', src: 'javascript:alert(1)' }] },
          { type: 'marquee' },
        ],
      },
    ]);
    const out = html(<MessageView message={{ type: 10, content }} />);
    expect(out).not.toMatch(/href=|<img|<script/);
    expect(countClass(out, 'kcard-unsupported')).toBe(1);
    expect(countClass(out, 'msg-view-toggle')).toBe(1);
  });

  it('speaks Chinese when the console does', () => {
    lang.value = 'zh-CN';
    expect(textOf(html(<MessageView message={{ type: 9, content: 'x' }} />))).toBe('KMarkdown 消息原文x');
    expect(textOf(html(<MessageView message={{ type: 10, content: '[]' }} raw />))).toBe(
      '卡片消息渲染效果[]',
    );
    expect(textOf(html(<MessageView message={{ type: 10, content: 'nope' }} />))).toMatch(
      /^内容不能作为卡片消息读取（.+），按原文显示。nope$/,
    );
  });
});
