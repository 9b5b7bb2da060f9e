import { describe, expect, it } from 'vitest';
import { CARD_MESSAGE_SCHEMA } from '../../../src/render/cards/card-schema.js';
import { CardInvalidError, validateCard } from '../../../src/render/cards/index.js';
import { card, expectInvalid, LATER, NOW } from './helpers.js';

const text = (content: string) => ({ type: 'plain-text', content });
const kmd = (content: string) => ({ type: 'kmarkdown', content });
const img = (src = 'https://img.example/a.png') => ({ type: 'image', src });
const btn = { type: 'button', text: 'Go' };
const section = (t: unknown = 'hi', extra: Record<string, unknown> = {}) => ({
  type: 'section',
  text: t,
  ...extra,
});
const times = <T>(n: number, value: T): T[] => Array.from({ length: n }, () => value);
const m0 = 'card[0].modules[0]';

/** One row per rule of platform facts "Card message structure", each broken once. */
const CASES: readonly [string, unknown, string][] = [
  [
    'not a list',
    { type: 'card', modules: [] },
    'card: a card message must be a list of cards (wrap a single card in [ ])',
  ],
  ['no cards', [], 'card: a card message holds at least 1 card'],
  ['6 cards', times(6, { type: 'card', modules: [] }), 'card: a card message holds at most 5 cards'],
  [
    '51 modules across cards',
    [
      { type: 'card', modules: times(30, { type: 'divider' }) },
      { type: 'card', modules: times(21, { type: 'divider' }) },
    ],
    'card[1].modules[20]: all cards together hold at most 50 modules',
  ],
  ['card type', [{ type: 'cards', modules: [] }], 'card[0].type: must be a card (type "card"), not "cards"'],
  ['card without modules', [{ type: 'card' }], 'card[0].modules: is required'],
  [
    'card unknown field',
    [{ type: 'card', title: 'x', modules: [] }],
    'card[0].title: is not a field of a card',
  ],
  [
    'theme',
    [{ type: 'card', theme: 'dark', modules: [] }],
    'card[0].theme: must be one of "primary", "success", "danger", "warning", "info", "secondary", "none", "invisible"',
  ],
  ['size', [{ type: 'card', size: 'md', modules: [] }], 'card[0].size: must be one of "sm", "lg"'],
  [
    'color',
    [{ type: 'card', color: 'red', modules: [] }],
    'card[0].color: must be a hex colour such as #aaaaaa',
  ],
  [
    'invisible theme module',
    [{ type: 'card', theme: 'invisible', modules: [{ type: 'invite', code: 'abc' }] }],
    `${m0}.type: a card with theme invisible holds only context, action-group, divider, header, container, section, file, audio, video modules`,
  ],
  [
    'invisible theme section accessory',
    [{ type: 'card', theme: 'invisible', modules: [section('hi', { accessory: img() })] }],
    `${m0}.accessory: a section in a card with theme invisible has no accessory`,
  ],
  [
    'module type',
    card({ type: 'table' }),
    `${m0}.type: must be a module type (header, section, image-group, container, action-group, context, divider, file, audio, video, countdown, invite), not "table"`,
  ],
  ['module without type', card({ text: 'x' }), `${m0}.type: is required`],
  ['module not an object', card('hello'), `${m0}: must be a module object`],
  [
    'header text length (bare)',
    card({ type: 'header', text: 'x'.repeat(101) }),
    `${m0}.text: header text is at most 100 characters`,
  ],
  [
    'header text length (element)',
    card({ type: 'header', text: text('x'.repeat(101)) }),
    `${m0}.text.content: header text is at most 100 characters`,
  ],
  [
    'header text kmarkdown',
    card({ type: 'header', text: kmd('x') }),
    `${m0}.text.type: a header text is plain-text, not "kmarkdown"`,
  ],
  ['header without text', card({ type: 'header' }), `${m0}.text: is required`],
  [
    'section text type',
    card(section(img())),
    `${m0}.text.type: a section text is plain-text, kmarkdown or paragraph, not "image"`,
  ],
  ['section text number', card(section(5)), `${m0}.text: must be a string or a text element`],
  [
    'section accessory type',
    card(section('hi', { accessory: text('x') })),
    `${m0}.accessory.type: a section accessory is an image or a button, not "plain-text"`,
  ],
  [
    'section mode',
    card(section('hi', { mode: 'top', accessory: img() })),
    `${m0}.mode: must be one of "left", "right"`,
  ],
  [
    'button on the left',
    card(section('hi', { mode: 'left', accessory: btn })),
    `${m0}.mode: a button accessory cannot be on the left (use mode right)`,
  ],
  [
    'image-group empty',
    card({ type: 'image-group', elements: [] }),
    `${m0}.elements: an image-group holds at least 1 image`,
  ],
  [
    'image-group 10 images',
    card({ type: 'image-group', elements: times(10, img()) }),
    `${m0}.elements: an image-group holds at most 9 images`,
  ],
  [
    'container 10 images',
    card({ type: 'container', elements: times(10, img()) }),
    `${m0}.elements: a container holds at most 9 images`,
  ],
  [
    'container with a button',
    card({ type: 'container', elements: [btn] }),
    `${m0}.elements[0].type: a container holds only image elements, not "button"`,
  ],
  [
    'action-group empty',
    card({ type: 'action-group', elements: [] }),
    `${m0}.elements: an action-group holds at least 1 button`,
  ],
  [
    'action-group 5 buttons',
    card({ type: 'action-group', elements: times(5, btn) }),
    `${m0}.elements: an action-group holds at most 4 buttons`,
  ],
  [
    'action-group with an image',
    card({ type: 'action-group', elements: [btn, img()] }),
    `${m0}.elements[1].type: an action-group holds only button elements, not "image"`,
  ],
  [
    'context 11 elements',
    card({ type: 'context', elements: times(11, 'x') }),
    `${m0}.elements: a context holds at most 10 elements`,
  ],
  [
    'context with a button',
    card({ type: 'context', elements: ['x', btn] }),
    `${m0}.elements[1].type: a context holds only plain-text, kmarkdown and image elements, not "button"`,
  ],
  [
    'divider with a field',
    card({ type: 'divider', text: 'x' }),
    `${m0}.text: is not a field of a divider module (it has no fields)`,
  ],
  ['file without src', card({ type: 'file', title: 'a.zip' }), `${m0}.src: is required`],
  ['file empty src', card({ type: 'file', src: '' }), `${m0}.src: must not be empty`],
  [
    'video cover',
    card({ type: 'video', src: 'v.mp4', cover: 'c.png' }),
    `${m0}.cover: is not a field of a video module`,
  ],
  ['audio title type', card({ type: 'audio', src: 'a.mp3', title: 3 }), `${m0}.title: must be a string`],
  [
    'countdown mode',
    card({ type: 'countdown', endTime: LATER, mode: 'week' }),
    `${m0}.mode: must be one of "day", "hour", "second"`,
  ],
  ['countdown without mode', card({ type: 'countdown', endTime: LATER }), `${m0}.mode: is required`],
  [
    'countdown endTime not integer',
    card({ type: 'countdown', endTime: '2024-01-01', mode: 'day' }),
    `${m0}.endTime: must be a millisecond timestamp (an integer)`,
  ],
  [
    'countdown startTime without mode second',
    card({ type: 'countdown', endTime: LATER, startTime: NOW, mode: 'hour' }),
    `${m0}.startTime: is allowed only with mode second`,
  ],
  [
    'countdown endTime past',
    card({ type: 'countdown', endTime: NOW - 1, mode: 'day' }),
    `${m0}.endTime: must not lie in the past`,
  ],
  [
    'countdown endTime in seconds',
    card({ type: 'countdown', endTime: Math.floor(LATER / 1000), mode: 'day' }),
    `${m0}.endTime: must not lie in the past (it looks like seconds; times are in milliseconds)`,
  ],
  [
    'countdown startTime past',
    card({ type: 'countdown', endTime: LATER, startTime: NOW - 1, mode: 'second' }),
    `${m0}.startTime: must not lie in the past`,
  ],
  ['invite without code', card({ type: 'invite' }), `${m0}.code: is required`],
  [
    'plain-text length',
    card(section(text('x'.repeat(2001)))),
    `${m0}.text.content: plain-text content is at most 2000 characters`,
  ],
  [
    'bare string length',
    card(section('x'.repeat(2001))),
    `${m0}.text: plain-text content is at most 2000 characters`,
  ],
  [
    'plain-text emoji',
    card(section({ ...text('x'), emoji: 'no' })),
    `${m0}.text.emoji: must be true or false`,
  ],
  ['plain-text content missing', card(section({ type: 'plain-text' })), `${m0}.text.content: is required`],
  [
    'kmarkdown length',
    card(section(kmd('x'.repeat(5001)))),
    `${m0}.text.content: kmarkdown content is at most 5000 characters`,
  ],
  [
    'image extension',
    card({ type: 'container', elements: [img('https://img.example/a.webp?w=10')] }),
    `${m0}.elements[0].src: only jpg, jpeg, gif, png images are allowed, not .webp`,
  ],
  [
    'image fallbackUrl extension',
    card({ type: 'container', elements: [{ ...img(), fallbackUrl: '/x/fallback.SVG' }] }),
    `${m0}.elements[0].fallbackUrl: only jpg, jpeg, gif, png images are allowed, not .svg`,
  ],
  [
    'image size',
    card({ type: 'container', elements: [{ ...img(), size: 'xl' }] }),
    `${m0}.elements[0].size: must be one of "sm", "lg"`,
  ],
  [
    'image circle',
    card({ type: 'container', elements: [{ ...img(), circle: 'true' }] }),
    `${m0}.elements[0].circle: must be true or false`,
  ],
  [
    'image without src',
    card({ type: 'container', elements: [{ type: 'image' }] }),
    `${m0}.elements[0].src: is required`,
  ],
  [
    'button theme',
    card({ type: 'action-group', elements: [{ ...btn, theme: 'blue' }] }),
    `${m0}.elements[0].theme: must be one of "primary", "success", "danger", "warning", "info", "secondary", "none", "invisible"`,
  ],
  [
    'button click',
    card({ type: 'action-group', elements: [{ ...btn, click: 'open' }] }),
    `${m0}.elements[0].click: must be one of "", "link", "return-val"`,
  ],
  [
    'button value',
    card({ type: 'action-group', elements: [{ ...btn, value: 1 }] }),
    `${m0}.elements[0].value: must be a string`,
  ],
  [
    'button text type',
    card({ type: 'action-group', elements: [{ type: 'button', text: img() }] }),
    `${m0}.elements[0].text.type: a button text is plain-text or kmarkdown, not "image"`,
  ],
  [
    'paragraph cols 0',
    card(section({ type: 'paragraph', cols: 0, fields: ['a'] })),
    `${m0}.text.cols: a paragraph has 1 to 3 cols`,
  ],
  [
    'paragraph cols 4',
    card(section({ type: 'paragraph', cols: 4, fields: ['a'] })),
    `${m0}.text.cols: a paragraph has 1 to 3 cols`,
  ],
  [
    'paragraph cols not integer',
    card(section({ type: 'paragraph', cols: 1.5, fields: ['a'] })),
    `${m0}.text.cols: must be an integer`,
  ],
  [
    'paragraph 51 fields',
    card(section({ type: 'paragraph', cols: 2, fields: times(51, 'a') })),
    `${m0}.text.fields: a paragraph holds at most 50 fields`,
  ],
  [
    'paragraph image field',
    card(section({ type: 'paragraph', cols: 2, fields: [img()] })),
    `${m0}.text.fields[0].type: a paragraph holds only plain-text and kmarkdown fields, not "image"`,
  ],
];

describe('card limits', () => {
  it.each(CASES)('%s', (_name, value, detail) => expectInvalid(value, detail));

  it('puts path and rule into the error', () => {
    try {
      validateCard(card({ type: 'action-group', elements: times(5, btn) }), NOW);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(CardInvalidError);
      const error = err as CardInvalidError;
      expect(error.name).toBe('CardInvalidError');
      expect(error.code).toBe(40014);
      expect(error.status).toBe(400);
      expect(error.data).toEqual({ path: `${m0}.elements`, rule: 'an action-group holds at most 4 buttons' });
      expect(error.message).toBe(
        'Card message is invalid: card[0].modules[0].elements: an action-group holds at most 4 buttons',
      );
    }
  });
});

describe('card limits: what is allowed at the edges', () => {
  const valid = (value: unknown) => expect(validateCard(value, NOW)).toBe(value);

  it('counts characters as code points', () => {
    // 200 UTF-16 units: the quick pass (units) refuses it, the exact rules (code points) take it.
    valid(card({ type: 'header', text: '😀'.repeat(100) }));
    expectInvalid(
      card({ type: 'header', text: '😀'.repeat(101) }),
      `${m0}.text: header text is at most 100 characters`,
    );
  });
  it('has no minLength above 1 (the quick UTF-16 pass relies on it)', () => {
    const minLengths: number[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node !== null && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k === 'minLength' && typeof v === 'number') minLengths.push(v);
          walk(v);
        }
      }
    };
    walk(CARD_MESSAGE_SCHEMA);
    expect(minLengths.length).toBeGreaterThan(0);
    expect(minLengths.every((m) => m <= 1)).toBe(true);
  });
  it('takes exactly 5 cards and 50 modules', () => {
    valid(times(5, { type: 'card', modules: times(10, { type: 'divider' }) }));
  });
  it('takes 9 images, 4 buttons, 10 context elements, 50 paragraph fields', () => {
    valid(
      card(
        { type: 'image-group', elements: times(9, img()) },
        { type: 'action-group', elements: times(4, btn) },
        { type: 'context', elements: times(10, kmd('x')) },
        section({ type: 'paragraph', cols: 3, fields: times(50, 'a') }),
      ),
    );
  });
  it('accepts image addresses without extension, with a query, or jpeg/gif/png in any case', () => {
    for (const src of [
      'https://img.example/abc',
      'https://img.example',
      'a.JPG',
      'a.jpeg?x=.webp',
      'x/a.gif#f',
      'a.png',
    ]) {
      valid(card({ type: 'container', elements: [img(src)] }));
    }
  });
  it('accepts a countdown ending right now, and startTime with mode second', () => {
    valid(card({ type: 'countdown', endTime: NOW, mode: 'day' }));
    valid(card({ type: 'countdown', endTime: LATER, startTime: NOW, mode: 'second' }));
  });
  it('accepts an invisible card with the allowed modules', () => {
    valid([
      {
        type: 'card',
        theme: 'invisible',
        modules: [section('hi'), { type: 'divider' }, { type: 'header', text: 'h' }],
      },
    ]);
  });
  it('accepts a button on the right and an image on the left', () => {
    valid(
      card(
        section('hi', { mode: 'right', accessory: btn }),
        section('hi', { mode: 'left', accessory: img() }),
      ),
    );
  });
  it('defaults the clock to Date.now()', () => {
    const future = Date.now() + 60_000;
    valid(card({ type: 'countdown', endTime: future, mode: 'second' }));
    expect(() => validateCard(card({ type: 'countdown', endTime: NOW, mode: 'second' }))).toThrow(
      CardInvalidError,
    );
  });
});
