import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lang } from '../../console/src/i18n.ts';
import { CardView, countdownText, drawCards } from '../../console/src/views/card-view.tsx';
import { CARD_THEMES } from '../../src/render/cards/limits.ts';
import type { CardMessage, CardModule } from '../../src/render/cards/types.ts';
import { validateCard } from '../../src/render/cards/validate-card.ts';
import { attributeNames, countClass, html, tags, textOf } from './html.ts';

const NOW = Date.UTC(2030, 0, 1, 0, 0, 0);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** One card holding `modules`, drawn at NOW. */
const drawModules = (modules: unknown[], card: Record<string, unknown> = {}): string =>
  html(drawCards([{ type: 'card', ...card, modules }], NOW));
/** The HTML of the single module drawn inside a card. */
const drawModule = (m: unknown): string => {
  const out = drawModules([m]);
  const match =
    /^<div class="kcards"><div class="kcard kcard-theme-primary kcard-size-lg">(.*)<\/div><\/div>$/s.exec(
      out,
    );
  if (!match) throw new Error(`unexpected card wrapper: ${out}`);
  return match[1]!;
};

beforeEach(() => {
  lang.value = 'en-US';
});
afterEach(() => {
  lang.value = 'en-US';
});

/** A card message that uses every module and element type of the schema, and passes validation. */
const EVERY_MODULE: CardMessage = [
  {
    type: 'card',
    theme: 'info',
    size: 'lg',
    modules: [
      { type: 'header', text: { type: 'plain-text', content: 'Deploy finished' } },
      { type: 'section', text: { type: 'kmarkdown', content: '**v1.2** is live' } },
      {
        type: 'section',
        mode: 'left',
        text: 'plain section',
        accessory: { type: 'image', src: 'https://img.example/ok.png', size: 'sm', circle: true },
      },
      {
        type: 'section',
        mode: 'right',
        text: { type: 'paragraph', cols: 2, fields: ['Env', { type: 'kmarkdown', content: '**prod**' }] },
        accessory: {
          type: 'button',
          theme: 'primary',
          click: 'link',
          value: 'https://ci.example/?id=1',
          text: 'Open',
        },
      },
      {
        type: 'image-group',
        elements: [
          { type: 'image', src: 'https://img.example/1.png' },
          { type: 'image', src: 'https://img.example/2.jpg', alt: 'two' },
        ],
      },
      { type: 'container', elements: [{ type: 'image', src: 'https://img.example/c.gif' }] },
      {
        type: 'action-group',
        elements: [
          { type: 'button', click: 'return-val', value: 'ack', text: 'Ack', theme: 'success' },
          {
            type: 'button',
            click: 'link',
            value: 'https://x.example/',
            text: { type: 'kmarkdown', content: '*Go*' },
          },
        ],
      },
      {
        type: 'context',
        elements: [
          'by bot',
          { type: 'plain-text', content: 'plain', emoji: false },
          { type: 'kmarkdown', content: '(met)all(met)' },
          { type: 'image', src: 'https://img.example/i.png' },
        ],
      },
      { type: 'divider' },
      { type: 'file', src: 'https://f.example/report.pdf', title: 'Report' },
      { type: 'audio', src: 'https://f.example/a.mp3', title: 'Song', cover: 'https://img.example/c.png' },
      { type: 'video', src: 'https://f.example/v.mp4', title: 'Clip' },
      { type: 'countdown', mode: 'day', endTime: NOW + 2 * DAY + 3 * HOUR + 61_000 },
      { type: 'invite', code: 'AbC123' },
    ],
  },
];

describe('card view: every module type', () => {
  it('is a valid card message by Herald’s own validation', () => {
    expect(() => validateCard(EVERY_MODULE, NOW)).not.toThrow();
  });

  it('draws each module in order with its own element', () => {
    const out = html(drawCards(EVERY_MODULE, NOW));
    const moduleClasses = [
      'kcard-header',
      'kcard-section',
      'kcard-image-group',
      'kcard-container',
      'kcard-action-group',
      'kcard-context',
      'kcard-divider',
      'kcard-file',
      'kcard-audio',
      'kcard-video',
      'kcard-countdown',
      'kcard-invite',
    ];
    for (const cls of moduleClasses) expect(countClass(out, cls), cls).toBeGreaterThan(0);
    expect(countClass(out, 'kcard-section')).toBe(3);
    expect(countClass(out, 'kcard-unsupported')).toBe(0);
    const order = tags(out)
      .map((tag) => moduleClasses.find((c) => tag.split('.').includes(c)))
      .filter(Boolean);
    expect(order).toEqual(moduleClasses.flatMap((c) => (c === 'kcard-section' ? [c, c, c] : [c])));
    expect(textOf(out)).toContain('Deploy finished');
  });

  it('draws a header as a heading with its plain text, string or element', () => {
    expect(drawModule({ type: 'header', text: 'Hello <b>' })).toBe(
      '<h3 class="kcard-header"><span class="kcard-plain">Hello &lt;b></span></h3>',
    );
    expect(drawModule({ type: 'header', text: { type: 'plain-text', content: 'Obj' } })).toBe(
      '<h3 class="kcard-header"><span class="kcard-plain">Obj</span></h3>',
    );
  });

  it('draws a section’s text as plain-text or KMarkdown', () => {
    expect(drawModule({ type: 'section', text: 'a\nb' })).toBe(
      '<div class="kcard-section"><div class="kcard-section-text"><span class="kcard-plain">a\nb</span></div></div>',
    );
    expect(drawModule({ type: 'section', text: { type: 'plain-text', content: '**not kmd**' } })).toContain(
      '<span class="kcard-plain">**not kmd**</span>',
    );
    expect(drawModule({ type: 'section', text: { type: 'kmarkdown', content: '**kmd**' } })).toContain(
      '<div class="kmd"><p class="kmd-p"><strong>kmd</strong></p></div>',
    );
  });

  it('puts a section’s accessory left or right of the text, in reading order', () => {
    const img = { type: 'image', src: 'https://img.example/a.png' };
    const left = drawModule({ type: 'section', mode: 'left', text: 'T', accessory: img });
    expect(tags(left).slice(0, 3)).toEqual([
      'div.kcard-section.kcard-section-left',
      'div.kcard-accessory',
      'img.kcard-img.kcard-img-lg',
    ]);
    expect(left.indexOf('kcard-accessory')).toBeLessThan(left.indexOf('kcard-section-text'));
    const right = drawModule({ type: 'section', mode: 'right', text: 'T', accessory: img });
    expect(tags(right).slice(0, 2)).toEqual([
      'div.kcard-section.kcard-section-right',
      'div.kcard-section-text',
    ]);
    expect(right.indexOf('kcard-section-text')).toBeLessThan(right.indexOf('kcard-accessory'));
    // No mode: the accessory sits on the right.
    expect(drawModule({ type: 'section', text: 'T', accessory: img })).toContain('kcard-section-right');
    const button = drawModule({
      type: 'section',
      text: 'T',
      mode: 'right',
      accessory: { type: 'button', text: 'B', click: 'link', value: 'https://b.example/' },
    });
    expect(button).toContain(
      '<div class="kcard-accessory"><a class="kcard-btn kcard-btn-primary" href="https://b.example/" target="_blank" rel="noopener noreferrer"><span class="kcard-plain">B</span></a></div>',
    );
  });

  it('draws a paragraph in its number of columns', () => {
    for (const cols of [1, 2, 3]) {
      const out = drawModule({
        type: 'section',
        text: { type: 'paragraph', cols, fields: ['a', { type: 'kmarkdown', content: '**b**' }, 'c'] },
      });
      expect(out).toContain(`<div class="kcard-paragraph kcard-cols-${cols}">`);
      expect(countClass(out, 'kcard-field')).toBe(3);
      expect(out).toContain(
        '<div class="kcard-field"><div class="kmd"><p class="kmd-p"><strong>b</strong></p></div></div>',
      );
    }
    // Outside 1..3 (refused by validation) draws as one column rather than failing.
    for (const cols of [0, 4, 'two', null]) {
      const out = drawModule({ type: 'section', text: { type: 'paragraph', cols, fields: ['x'] } });
      expect(out, String(cols)).toContain('kcard-cols-1');
    }
  });

  it('draws image-group as a grid and container as a row, each image sized', () => {
    const three = drawModule({
      type: 'image-group',
      elements: [1, 2, 3, 4].map((i) => ({ type: 'image', src: `https://img.example/${i}.png`, size: 'sm' })),
    });
    expect(three.startsWith('<div class="kcard-image-group kcard-images-3">')).toBe(true);
    expect(countClass(three, 'kcard-img-sm')).toBe(4);
    expect(
      drawModule({ type: 'image-group', elements: [{ type: 'image', src: 'https://i.example/a.png' }] }),
    ).toContain('kcard-images-1');
    const container = drawModule({
      type: 'container',
      elements: [{ type: 'image', src: 'https://img.example/a.png', alt: 'A', circle: true }],
    });
    expect(container).toBe(
      '<div class="kcard-container"><img class="kcard-img kcard-img-lg kcard-img-circle" src="https://img.example/a.png" alt="A" loading="lazy" decoding="async" referrerpolicy="no-referrer"/></div>',
    );
  });

  it('draws action-group buttons: links open a new tab, return-val buttons are inert', () => {
    const out = drawModule({
      type: 'action-group',
      elements: [
        { type: 'button', text: 'Open', click: 'link', value: 'https://ci.example/1', theme: 'danger' },
        { type: 'button', text: 'Ack', click: 'return-val', value: 'ack-1', theme: 'warning' },
        { type: 'button', text: { type: 'kmarkdown', content: '**Bold**' }, theme: 'secondary' },
      ],
    });
    expect(out).toBe(
      '<div class="kcard-action-group">' +
        '<a class="kcard-btn kcard-btn-danger" href="https://ci.example/1" target="_blank" rel="noopener noreferrer"><span class="kcard-plain">Open</span></a>' +
        '<span class="kcard-btn kcard-btn-warning kcard-btn-inert" title="Sends “ack-1” back to the bot (not clickable here)"><span class="kcard-plain">Ack</span></span>' +
        '<span class="kcard-btn kcard-btn-secondary kcard-btn-inert" title="No click action"><span class="kmd kmd-inline"><strong>Bold</strong></span></span>' +
        '</div>',
    );
    expect(attributeNames(out)).not.toContain('onclick');
  });

  it('draws context elements small and inline: text, KMarkdown and images', () => {
    const out = drawModule({
      type: 'context',
      elements: [
        'bare',
        { type: 'plain-text', content: 'plain' },
        { type: 'kmarkdown', content: '*it* (chn)5(chn)' },
        { type: 'image', src: 'https://img.example/i.png', size: 'sm' },
      ],
    });
    expect(out).toBe(
      '<div class="kcard-context"><span class="kcard-plain">bare</span><span class="kcard-plain">plain</span>' +
        '<span class="kmd kmd-inline"><em>it</em> <span class="kmd-channel">#5</span></span>' +
        '<img class="kcard-img kcard-img-sm kcard-context-img" src="https://img.example/i.png" alt loading="lazy" decoding="async" referrerpolicy="no-referrer"/></div>',
    );
  });

  it('draws a divider as a rule', () => {
    expect(drawModule({ type: 'divider' })).toBe('<hr class="kcard-divider"/>');
  });

  it('draws file, audio and video as titled boxes with a link, never a player', () => {
    const file = drawModule({ type: 'file', src: 'https://f.example/dir/report%202024.pdf?sig=1' });
    expect(tags(file)).toEqual([
      'div.kcard-media.kcard-file',
      'span.kcard-media-icon',
      'div.kcard-media-body',
      'div.kcard-media-title',
      'div.kcard-media-kind',
      'a.kcard-media-link',
    ]);
    // No title: the file's name from its address.
    expect(file).toContain('<div class="kcard-media-title">report 2024.pdf</div>');
    expect(file).toContain(
      'href="https://f.example/dir/report%202024.pdf?sig=1" target="_blank" rel="noopener noreferrer"',
    );

    const audio = drawModule({
      type: 'audio',
      src: 'https://f.example/a.mp3',
      title: 'Song',
      cover: 'https://img.example/c.png',
    });
    expect(tags(audio).slice(0, 2)).toEqual([
      'div.kcard-media.kcard-audio',
      'img.kcard-img.kcard-img-sm.kcard-cover',
    ]);
    expect(textOf(audio)).toBe('SongAudiohttps://f.example/a.mp3');

    const video = drawModule({ type: 'video', src: 'https://f.example/v.mp4', title: 'Clip' });
    expect(textOf(video)).toBe('MP4ClipVideohttps://f.example/v.mp4');
    expect(textOf(file).startsWith('PDFreport 2024.pdfFile')).toBe(true);
    expect(textOf(drawModule({ type: 'video', src: 'https://f.example/stream' }))).toBe(
      'VIDEOstreamVideohttps://f.example/stream',
    );
    for (const out of [file, audio, video]) {
      expect(out).not.toMatch(/<(video|audio|iframe|embed|object|source)\b/);
      expect(attributeNames(out)).not.toContain('autoplay');
    }
  });

  it('draws a countdown as fixed text at the given time, per mode', () => {
    const end = NOW + 2 * DAY + 3 * HOUR + 4 * 60_000 + 5_000;
    const day = drawModule({ type: 'countdown', mode: 'day', endTime: end });
    expect(day).toContain(
      '<time class="kcard-countdown-value" datetime="2030-01-03T03:04:05.000Z">2 days 03:04:05</time>',
    );
    expect(tags(day)).toEqual([
      'div.kcard-countdown.kcard-countdown-day',
      'span.kcard-countdown-label',
      'time.kcard-countdown-value',
      'span.kcard-countdown-end',
    ]);
    expect(drawModule({ type: 'countdown', mode: 'hour', endTime: end })).toContain('>51:04:05</time>');
    expect(drawModule({ type: 'countdown', mode: 'second', endTime: NOW + 90_000 })).toContain(
      '>90 s</time>',
    );
    expect(drawModule({ type: 'countdown', mode: 'day', endTime: NOW - 1 })).toContain('>ended</time>');
    // Mode second with a start still ahead: the whole span, and when it starts.
    const ahead = drawModule({
      type: 'countdown',
      mode: 'second',
      startTime: NOW + 10_000,
      endTime: NOW + 70_000,
    });
    expect(ahead).toContain('>60 s</time>');
    expect(textOf(ahead)).toContain('starts ');
    expect(countdownText('day', NOW + DAY, NOW)).toBe('1 days 00:00:00');
    lang.value = 'zh-CN';
    expect(countdownText('day', end, NOW)).toBe('2 天 03:04:05');
    expect(countdownText('second', end, end)).toBe('已结束');
  });

  it('takes `now` from the component prop, defaulting to the clock', () => {
    const cards = [{ type: 'card', modules: [{ type: 'countdown', mode: 'second', endTime: NOW + 5_000 }] }];
    expect(html(<CardView cards={cards} now={NOW} />)).toContain('>5 s</time>');
    // Against the real clock NOW is years ahead, so the text is a large number of seconds.
    expect(textOf(html(<CardView cards={cards} />))).toMatch(/\d{6,} s/);
  });

  it('draws an invite with its code, as a link when it is one', () => {
    expect(drawModule({ type: 'invite', code: 'AbC123' })).toBe(
      '<div class="kcard-invite"><span class="kcard-invite-label">Server invite</span><span class="kcard-invite-code">AbC123</span></div>',
    );
    expect(drawModule({ type: 'invite', code: 'https://invite.example/AbC' })).toContain(
      '<a class="kcard-invite-code" href="https://invite.example/AbC" target="_blank" rel="noopener noreferrer">',
    );
  });
});

describe('card view: the card itself', () => {
  it('draws every theme as a class (the stripe), primary by default', () => {
    for (const theme of CARD_THEMES) {
      expect(drawModules([], { theme })).toBe(
        `<div class="kcards"><div class="kcard kcard-theme-${theme} kcard-size-lg"></div></div>`,
      );
    }
    expect(drawModules([])).toContain('kcard-theme-primary');
    expect(drawModules([], { theme: 'neon' })).toContain('kcard-theme-primary');
  });

  it('draws size sm and lg (lg by default) and a valid colour as the stripe', () => {
    expect(drawModules([], { size: 'sm' })).toContain('class="kcard kcard-theme-primary kcard-size-sm"');
    expect(drawModules([], { size: 'xl' })).toContain('kcard-size-lg');
    expect(drawModules([], { color: '#aaBB01' })).toContain('style="border-left-color:#aaBB01;"');
    expect(drawModules([], { color: '#abc' })).toContain('style="border-left-color:#abc;"');
    for (const color of ['red', '#abcd', 'red;background:url(https://evil.example/x)', '#abc;x:y', 12]) {
      expect(drawModules([], { color }), String(color)).not.toContain('style=');
    }
    // An invisible card has no stripe, whatever its colour.
    expect(drawModules([], { theme: 'invisible', color: '#abc' })).not.toContain('style=');
  });

  it('draws several cards in order', () => {
    const out = html(
      drawCards(
        [
          { type: 'card', theme: 'success', modules: [{ type: 'header', text: 'one' }] },
          { type: 'card', theme: 'danger', modules: [{ type: 'header', text: 'two' }] },
        ],
        NOW,
      ),
    );
    expect(tags(out).filter((t) => t.startsWith('div.kcard.'))).toEqual([
      'div.kcard.kcard-theme-success.kcard-size-lg',
      'div.kcard.kcard-theme-danger.kcard-size-lg',
    ]);
    expect(textOf(out)).toBe('onetwo');
  });
});

describe('card view: what the schema does not allow', () => {
  it('draws unknown modules and elements as a small box naming the type', () => {
    expect(drawModule({ type: 'carousel', items: [] })).toBe(
      '<div class="kcard-unsupported" role="note">unsupported module: carousel</div>',
    );
    expect(drawModule('text')).toContain('unsupported module: string');
    expect(drawModule(null)).toContain('unsupported module: object');
    expect(drawModule({ noType: true })).toContain('unsupported module: ?');
    expect(drawModule({ type: 'image-group', elements: [{ type: 'button', text: 'x' }] })).toContain(
      'unsupported element: button',
    );
    expect(
      drawModule({ type: 'action-group', elements: [{ type: 'image', src: 'https://i.example/a.png' }] }),
    ).toContain('unsupported element: image');
    expect(drawModule({ type: 'section', text: { type: 'table' } })).toContain('unsupported element: table');
    expect(drawModule({ type: 'section', text: 'x', accessory: { type: 'video' } })).toContain(
      'unsupported element: video',
    );
    expect(drawModule({ type: 'countdown', mode: 'day', endTime: 'soon' })).toContain('kcard-unsupported');
    lang.value = 'zh-CN';
    expect(drawModule({ type: 'carousel' })).toContain('不支持的模块：carousel');
  });

  it('draws missing and wrongly typed fields as nothing rather than failing', () => {
    const broken = [
      { type: 'header' },
      { type: 'section' },
      { type: 'section', text: 5, accessory: 'x', mode: 'up' },
      { type: 'image-group', elements: 'none' },
      { type: 'container' },
      { type: 'action-group', elements: [{ type: 'button' }] },
      { type: 'context', elements: [null, 3] },
      { type: 'file' },
      { type: 'audio', cover: 7 },
      { type: 'video', src: { x: 1 } },
      { type: 'countdown', endTime: 1e300 },
      { type: 'countdown', mode: 'second', endTime: NOW + 1000, startTime: Number.NaN },
      { type: 'invite' },
    ];
    const out = drawModules(broken);
    expect(out.startsWith('<div class="kcards"><div class="kcard ')).toBe(true);
    expect(countClass(out, 'kcard-header')).toBe(1);
    expect(countClass(out, 'kcard-section')).toBe(2);
    expect(countClass(out, 'kcard-invite')).toBe(1);
  });

  it('draws what is not a card, or not a list of cards, as unsupported', () => {
    expect(html(drawCards({ type: 'card', modules: [] }, NOW))).toBe(
      '<div class="kcards"><div class="kcard-unsupported" role="note">not a list of cards</div></div>',
    );
    expect(html(drawCards([{ type: 'box' }, 3], NOW))).toBe(
      '<div class="kcards"><div class="kcard-unsupported" role="note">unsupported module: box</div><div class="kcard-unsupported" role="note">unsupported module: number</div></div>',
    );
    expect(drawModules('not a list' as unknown as unknown[])).toBe(
      '<div class="kcards"><div class="kcard kcard-theme-primary kcard-size-lg"></div></div>',
    );
  });

  it('draws huge input, far beyond the limits, without failing (limits are validation’s job)', () => {
    const text = `${'long text '.repeat(20_000)}`;
    const modules: unknown[] = [];
    for (let i = 0; i < 2_000; i++) {
      modules.push({ type: 'section', text: { type: 'kmarkdown', content: `**${i}**` } });
      modules.push({
        type: 'action-group',
        elements: Array.from({ length: 20 }, (_, j) => ({
          type: 'button',
          text: `b${j}`,
          click: 'return-val',
          value: `${j}`,
        })),
      });
    }
    modules.push(
      { type: 'header', text },
      { type: 'section', text: { type: 'paragraph', cols: 3, fields: Array(500).fill('f') } },
    );
    const cards = Array.from({ length: 20 }, () => ({ type: 'card', modules: [{ type: 'divider' }] }));
    const out = html(drawCards([{ type: 'card', modules }, ...cards], NOW));
    expect(countClass(out, 'kcard')).toBe(21);
    expect(countClass(out, 'kcard-btn')).toBe(40_000);
    expect(countClass(out, 'kcard-field')).toBe(500);
    expect(out).toContain(text.slice(0, 1000));
  });
});

describe('card view: hostile content is drawn inert', () => {
  const XSS_IMAGE_SOURCES = [
    'javascript:alert(1)',
    'data:image/svg+xml,<svg onload=alert(1)>',
    'x" onerror="alert(1)',
    '/relative.png',
    '//evil.example/a.png',
    'vbscript:msgbox',
  ];

  it('loads images only from http(s) addresses', () => {
    for (const src of XSS_IMAGE_SOURCES) {
      const out = drawModule({ type: 'container', elements: [{ type: 'image', src }] });
      expect(out, src).not.toContain('<img');
      expect(out, src).toContain('kcard-img-blocked');
      expect(attributeNames(out), src).not.toContain('src');
      expect(
        attributeNames(out).some((a) => a.startsWith('on')),
        src,
      ).toBe(false);
    }
  });

  it('keeps an image address that tries to break out of its attribute inside it', () => {
    const out = drawModule({
      type: 'container',
      elements: [
        { type: 'image', src: 'https://img.example/a.png" onerror="alert(1)', alt: '" onload="alert(2)' },
      ],
    });
    expect(attributeNames(out)).toEqual([
      'class',
      'class',
      'src',
      'alt',
      'loading',
      'decoding',
      'referrerpolicy',
    ]);
    expect(out).toContain('src="https://img.example/a.png%22%20onerror=%22alert(1)"');
    expect(out).toContain('alt="&quot; onload=&quot;alert(2)"');
  });

  it('never makes a link of a javascript: or other non-http button, file or invite address', () => {
    const out = drawModules([
      {
        type: 'action-group',
        elements: [{ type: 'button', text: 'x', click: 'link', value: 'javascript:alert(1)' }],
      },
      {
        type: 'section',
        text: 'y',
        accessory: { type: 'button', text: 'z', click: 'link', value: 'data:text/html,hi' },
      },
      { type: 'file', src: 'javascript:alert(1)', title: 'f' },
      { type: 'audio', src: 'javascript:alert(1)', cover: 'javascript:alert(2)' },
      { type: 'video', src: 'file:///etc/passwd' },
      { type: 'invite', code: 'javascript:alert(1)' },
    ]);
    expect(out).not.toContain('href');
    expect(out).not.toContain('<a');
    expect(out).not.toContain('<img');
    expect(countClass(out, 'kcard-btn-inert')).toBe(2);
    expect(textOf(out)).toContain('javascript:alert(1)');
  });

  it('draws <script> and markup in any text as text', () => {
    const evil = '<script>alert(1)</script><img src=x onerror=alert(1)>';
    const out = drawModules([
      { type: 'header', text: evil },
      { type: 'section', text: { type: 'kmarkdown', content: evil } },
      { type: 'section', text: { type: 'paragraph', cols: 1, fields: [evil] } },
      { type: 'context', elements: [evil, { type: 'kmarkdown', content: evil }] },
      { type: 'action-group', elements: [{ type: 'button', text: evil, click: 'return-val', value: evil }] },
      { type: 'file', src: 'https://f.example/x', title: evil },
      { type: 'invite', code: evil },
      { type: evil },
    ]);
    expect(out).not.toMatch(/<script|<img/);
    expect(attributeNames(out).filter((a) => a.startsWith('on'))).toEqual([]);
    expect(textOf(out).split(evil).length - 1).toBe(9);
  });

  it('draws with no handlers or scripts for the valid full card either', () => {
    const out = html(drawCards(EVERY_MODULE, NOW));
    expect(attributeNames(out).filter((a) => a.startsWith('on'))).toEqual([]);
    for (const m of out.matchAll(/<a [^>]*>/g)) {
      expect(m[0]).toMatch(/ target="_blank" rel="noopener noreferrer"/);
      expect(m[0]).toMatch(/ href="https:\/\//);
    }
  });
});

// The types tie the fixtures to the schema: a module type added to CardModule must be drawn too.
const DRAWN: Record<CardModule['type'], true> = {
  header: true,
  section: true,
  'image-group': true,
  container: true,
  'action-group': true,
  context: true,
  divider: true,
  file: true,
  audio: true,
  video: true,
  countdown: true,
  invite: true,
};
it('covers every module type the card types name', () => {
  const used = new Set(EVERY_MODULE[0]!.modules.map((m) => m.type));
  expect([...used].sort()).toEqual(Object.keys(DRAWN).sort());
  for (const type of Object.keys(DRAWN)) {
    expect(
      drawModule({
        type,
        text: 'x',
        elements: [],
        src: 'https://x.example/',
        code: 'c',
        endTime: NOW,
        mode: 'day',
      }),
      type,
    ).not.toContain('unsupported module');
  }
});
