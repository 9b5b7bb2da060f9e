import { describe, expect, it } from 'vitest';
import { CARD_THEMES, convertCard } from '../../../src/render/cards/index.js';
import { LATER, NOW } from './helpers.js';

/** One construct written three ways; all three must convert to `json` exactly. */
interface Case {
  readonly name: string;
  readonly json: unknown;
  readonly yaml: string;
  readonly xml: string;
}

const indent = (text: string, by: number) =>
  text
    .split('\n')
    .map((line) => (line ? ' '.repeat(by) + line : line))
    .join('\n');

/** A case for one or more modules in a plain card. */
const modules = (name: string, json: unknown[], yaml: string, xml: string): Case => ({
  name,
  json: [{ type: 'card', modules: json }],
  yaml: `- type: card\n  modules:\n${indent(yaml, 4)}\n`,
  // Not re-indented: indentation inside multi-line text content is kept, by design.
  xml: `<card>\n${xml}\n</card>`,
});

const MODULE_CASES: readonly Case[] = [
  modules(
    'header, bare string',
    [{ type: 'header', text: 'Hi' }],
    '- type: header\n  text: Hi',
    '<header>Hi</header>',
  ),
  modules(
    'header, plain-text element',
    [{ type: 'header', text: { type: 'plain-text', content: 'Hi 😀', emoji: false } }],
    '- type: header\n  text: {type: plain-text, content: Hi 😀, emoji: false}',
    '<header><plain-text emoji="false">Hi 😀</plain-text></header>',
  ),
  modules(
    'section, kmarkdown via <text type>',
    [{ type: 'section', text: { type: 'kmarkdown', content: '**hi**' } }],
    '- type: section\n  text:\n    type: kmarkdown\n    content: "**hi**"',
    '<section><text type="kmarkdown">**hi**</text></section>',
  ),
  modules(
    'section, plain-text via <text type> with emoji',
    [{ type: 'section', text: { type: 'plain-text', content: ':smile:', emoji: true } }],
    '- type: section\n  text: {type: plain-text, content: ":smile:", emoji: true}',
    '<section><text type="plain-text" emoji="true">:smile:</text></section>',
  ),
  modules(
    'section, multi-line kmarkdown (indentation lines trimmed, interior kept)',
    [{ type: 'section', text: { type: 'kmarkdown', content: '**title**\n  indented\n\nlast line' } }],
    '- type: section\n  text:\n    type: kmarkdown\n    content: |-\n      **title**\n        indented\n\n      last line',
    '<section>\n  <text>\n    <kmarkdown>\n**title**\n  indented\n\nlast line\n    </kmarkdown>\n  </text>\n</section>',
  ),
  modules(
    'section, paragraph (numeric-looking text stays a string)',
    [
      {
        type: 'section',
        text: {
          type: 'paragraph',
          cols: 3,
          fields: ['a', { type: 'plain-text', content: '123' }, { type: 'kmarkdown', content: '**b**' }],
        },
      },
    ],
    '- type: section\n  text:\n    type: paragraph\n    cols: 3\n    fields:\n      - a\n      - {type: plain-text, content: "123"}\n      - {type: kmarkdown, content: "**b**"}',
    '<section>\n  <paragraph cols="3">\n    <text>a</text>\n    <plain-text>123</plain-text>\n    <kmarkdown>**b**</kmarkdown>\n  </paragraph>\n</section>',
  ),
  modules(
    'section, image accessory on the left',
    [
      {
        type: 'section',
        mode: 'left',
        text: { type: 'kmarkdown', content: 'avatar' },
        accessory: { type: 'image', src: 'https://img.example/a.png', size: 'sm', circle: true },
      },
    ],
    '- type: section\n  mode: left\n  text: {type: kmarkdown, content: avatar}\n  accessory: {type: image, src: "https://img.example/a.png", size: sm, circle: true}',
    '<section mode="left">\n  <kmarkdown>avatar</kmarkdown>\n  <image src="https://img.example/a.png" size="sm" circle="true"/>\n</section>',
  ),
  modules(
    'section, button accessory on the right',
    [
      {
        type: 'section',
        mode: 'right',
        text: 'Open the page',
        accessory: {
          type: 'button',
          theme: 'primary',
          click: 'link',
          value: 'https://example.com/?a=1&b=2',
          text: 'Open',
        },
      },
    ],
    '- type: section\n  mode: right\n  text: Open the page\n  accessory:\n    type: button\n    theme: primary\n    click: link\n    value: https://example.com/?a=1&b=2\n    text: Open',
    '<section mode="right">\n  <text>Open the page</text>\n  <accessory>\n    <button theme="primary" click="link" value="https://example.com/?a=1&amp;b=2">Open</button>\n  </accessory>\n</section>',
  ),
  modules(
    'section, accessory via <accessory type>',
    [{ type: 'section', text: 'x', accessory: { type: 'image', src: 'a.gif', alt: 'A' } }],
    '- type: section\n  text: x\n  accessory: {type: image, src: a.gif, alt: A}',
    '<section><text>x</text><accessory type="image" src="a.gif" alt="A"/></section>',
  ),
  modules(
    'image-group',
    [
      {
        type: 'image-group',
        elements: [
          { type: 'image', src: 'https://img.example/1.jpg', alt: 'one' },
          {
            type: 'image',
            src: 'https://img.example/2.png',
            fallbackUrl: 'https://img.example/none.png',
            size: 'lg',
          },
        ],
      },
    ],
    '- type: image-group\n  elements:\n    - {type: image, src: "https://img.example/1.jpg", alt: one}\n    - type: image\n      src: https://img.example/2.png\n      fallbackUrl: https://img.example/none.png\n      size: lg',
    '<image-group>\n  <image src="https://img.example/1.jpg" alt="one"/>\n  <image src="https://img.example/2.png" fallbackUrl="https://img.example/none.png" size="lg"/>\n</image-group>',
  ),
  modules(
    'container',
    [{ type: 'container', elements: [{ type: 'image', src: 'https://img.example/c.jpeg' }] }],
    '- type: container\n  elements: [{type: image, src: "https://img.example/c.jpeg"}]',
    '<container><image src="https://img.example/c.jpeg"/></container>',
  ),
  modules(
    'action-group, every click kind and a kmarkdown text',
    [
      {
        type: 'action-group',
        elements: [
          { type: 'button', theme: 'success', click: 'return-val', value: 'ok', text: 'OK' },
          {
            type: 'button',
            theme: 'danger',
            click: '',
            value: '',
            text: { type: 'kmarkdown', content: '**No**' },
          },
          {
            type: 'button',
            click: 'link',
            value: 'https://example.com',
            text: { type: 'plain-text', content: 'Web' },
          },
        ],
      },
    ],
    [
      '- type: action-group',
      '  elements:',
      '    - {type: button, theme: success, click: return-val, value: ok, text: OK}',
      "    - {type: button, theme: danger, click: '', value: '', text: {type: kmarkdown, content: '**No**'}}",
      '    - type: button',
      '      click: link',
      '      value: https://example.com',
      '      text: {type: plain-text, content: Web}',
    ].join('\n'),
    [
      '<action-group>',
      '  <button theme="success" click="return-val" value="ok">OK</button>',
      '  <button theme="danger" click="" value=""><kmarkdown>**No**</kmarkdown></button>',
      '  <button click="link" value="https://example.com"><text type="plain-text">Web</text></button>',
      '</action-group>',
    ].join('\n'),
  ),
  modules(
    'context, bare string, kmarkdown and image',
    [
      {
        type: 'context',
        elements: [
          'by bot',
          { type: 'kmarkdown', content: '*now*' },
          { type: 'image', src: 'https://img.example/i.png' },
        ],
      },
    ],
    '- type: context\n  elements:\n    - by bot\n    - {type: kmarkdown, content: "*now*"}\n    - {type: image, src: "https://img.example/i.png"}',
    '<context>\n  <text>by bot</text>\n  <kmarkdown>*now*</kmarkdown>\n  <image src="https://img.example/i.png"/>\n</context>',
  ),
  modules('divider', [{ type: 'divider' }], '- type: divider', '<divider/>'),
  modules(
    'file, audio, video',
    [
      { type: 'file', src: 'https://files.example/report.pdf', title: 'report.pdf' },
      {
        type: 'audio',
        src: 'https://files.example/a.mp3',
        title: 'Song',
        cover: 'https://img.example/cover.png',
      },
      { type: 'video', src: 'https://files.example/v.mp4', title: 'Clip' },
    ],
    [
      '- {type: file, src: "https://files.example/report.pdf", title: report.pdf}',
      '- {type: audio, src: "https://files.example/a.mp3", title: Song, cover: "https://img.example/cover.png"}',
      '- {type: video, src: "https://files.example/v.mp4", title: Clip}',
    ].join('\n'),
    [
      '<file src="https://files.example/report.pdf" title="report.pdf"/>',
      '<audio src="https://files.example/a.mp3" title="Song" cover="https://img.example/cover.png"/>',
      '<video src="https://files.example/v.mp4" title="Clip"/>',
    ].join('\n'),
  ),
  modules(
    'countdown, every mode',
    [
      { type: 'countdown', mode: 'day', endTime: LATER },
      { type: 'countdown', mode: 'hour', endTime: LATER },
      { type: 'countdown', mode: 'second', startTime: NOW, endTime: LATER },
    ],
    `- {type: countdown, mode: day, endTime: ${LATER}}\n- {type: countdown, mode: hour, endTime: ${LATER}}\n- {type: countdown, mode: second, startTime: ${NOW}, endTime: ${LATER}}`,
    `<countdown mode="day" endTime="${LATER}"/>\n<countdown mode="hour" endTime="${LATER}"/>\n<countdown mode="second" startTime="${NOW}" endTime="${LATER}"/>`,
  ),
  modules(
    'invite',
    [{ type: 'invite', code: 'AbC123' }],
    '- type: invite\n  code: AbC123',
    '<invite code="AbC123"/>',
  ),
  modules(
    'special characters: entities, character references, CDATA',
    [
      { type: 'header', text: 'a < b & "c" 😀' },
      { type: 'section', text: { type: 'kmarkdown', content: '<b> & </b>' } },
    ],
    `- type: header\n  text: 'a < b & "c" 😀'\n- type: section\n  text: {type: kmarkdown, content: "<b> & </b>"}`,
    '<header>a &lt; b &amp; &quot;c&quot; &#x1F600;</header>\n<section><kmarkdown><![CDATA[<b> & </b>]]></kmarkdown></section>',
  ),
];

const THEME_CASES: readonly Case[] = CARD_THEMES.map((theme) => ({
  name: `card theme ${theme}`,
  json: [{ type: 'card', theme, modules: [{ type: 'divider' }] }],
  yaml: `- type: card\n  theme: ${theme}\n  modules:\n    - type: divider\n`,
  xml: `<card theme="${theme}"><divider/></card>`,
}));

const CARD_CASES: readonly Case[] = [
  {
    name: 'card size and color, several cards',
    json: [
      { type: 'card', size: 'sm', color: '#aaaaaa', modules: [{ type: 'header', text: 'one' }] },
      { type: 'card', size: 'lg', color: '#FFF', modules: [] },
    ],
    yaml: "- type: card\n  size: sm\n  color: '#aaaaaa'\n  modules: [{type: header, text: one}]\n- {type: card, size: lg, color: '#FFF', modules: []}\n",
    xml: '<?xml version="1.0" encoding="UTF-8"?>\n<cards>\n  <card size="sm" color="#aaaaaa"><header>one</header></card>\n  <!-- an empty card -->\n  <card size="lg" color="#FFF"></card>\n</cards>\n',
  },
];

describe('JSON, YAML and XML give identical card JSON', () => {
  it.each([...MODULE_CASES, ...THEME_CASES, ...CARD_CASES].map((c) => [c.name, c] as const))(
    '%s',
    (_name, c) => {
      const fromJson = convertCard(JSON.stringify(c.json), 'json', NOW);
      expect(fromJson).toEqual(c.json);
      expect(convertCard(c.yaml, 'yaml', NOW)).toEqual(c.json);
      expect(convertCard(c.xml, 'xml', NOW)).toEqual(c.json);
    },
  );

  it('covers every module and element type', () => {
    const seen = new Set<string>();
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object') {
        const type = (value as { type?: unknown }).type;
        if (typeof type === 'string') seen.add(type);
        Object.values(value).forEach(walk);
      }
    };
    for (const c of MODULE_CASES) walk(c.json);
    expect([...seen].sort()).toEqual(
      [
        'action-group',
        'audio',
        'button',
        'card',
        'container',
        'context',
        'countdown',
        'divider',
        'file',
        'header',
        'image',
        'image-group',
        'invite',
        'kmarkdown',
        'paragraph',
        'plain-text',
        'section',
        'video',
      ].sort(),
    );
  });
});
