import { describe, expect, it } from 'vitest';
import { LANGS } from '../../../src/errors/catalogue.js';
import { CARD_MESSAGE_SCHEMA } from '../../../src/render/cards/card-schema.js';
import { CardInvalidError, convertCard, validateCard } from '../../../src/render/cards/index.js';
import { card, englishWords, LATER, NOW } from './helpers.js';

const m0 = 'card[0].modules[0]';
const times = <T>(n: number, value: T): T[] => Array.from({ length: n }, () => value);

function refusal(run: () => unknown): CardInvalidError {
  try {
    run();
  } catch (err) {
    if (err instanceof CardInvalidError) return err;
    throw err;
  }
  throw new Error('the card was accepted');
}

/** One rule of each kind: [kind, card, the English message as it always was, the Chinese one]. */
const KINDS: readonly [string, unknown, string, string][] = [
  [
    'a type rule',
    card({ type: 'section', text: { type: 'plain-text', content: 'x', emoji: 'yes' } }),
    `Card message is invalid: ${m0}.text.emoji: must be true or false`,
    `卡片消息不合法：${m0}.text.emoji：必须是 true 或 false`,
  ],
  [
    'a required field',
    [{ type: 'card' }],
    'Card message is invalid: card[0].modules: is required',
    '卡片消息不合法：card[0].modules：为必填项',
  ],
  [
    'an unknown field, named by x-name',
    card({ type: 'video', src: 'https://v.example/a.mp4', cover: 'c' }),
    `Card message is invalid: ${m0}.cover: is not a field of a video module`,
    `卡片消息不合法：${m0}.cover：video 模块没有这个字段`,
  ],
  [
    'an unknown field of a paragraph (a Latin x-name)',
    card({ type: 'section', text: { type: 'paragraph', cols: 1, fields: ['a'], title: 'x' } }),
    `Card message is invalid: ${m0}.text.title: is not a field of a paragraph`,
    `卡片消息不合法：${m0}.text.title：paragraph 元素没有这个字段`,
  ],
  [
    'a max length',
    card({ type: 'section', text: { type: 'kmarkdown', content: 'x'.repeat(5001) } }),
    `Card message is invalid: ${m0}.text.content: kmarkdown content is at most 5000 characters`,
    `卡片消息不合法：${m0}.text.content：kmarkdown 内容最多 5000 个字符`,
  ],
  [
    'an x-rules rule on a field',
    card({ type: 'section', text: 'hi', mode: 'left', accessory: { type: 'button', text: 'Go' } }),
    `Card message is invalid: ${m0}.mode: a button accessory cannot be on the left (use mode right)`,
    `卡片消息不合法：${m0}.mode：作为 accessory 的 button 不能在左侧（请使用 mode right）`,
  ],
  [
    'a wrong type in a typed slot',
    card({ type: 'context', elements: [{ type: 'button', text: 'Go' }] }),
    `Card message is invalid: ${m0}.elements[0].type: a context holds only plain-text, kmarkdown and image elements, not "button"`,
    `卡片消息不合法：${m0}.elements[0].type：context 只能包含 plain-text、kmarkdown 和 image 元素，不能是 "button"`,
  ],
  [
    'an image extension',
    card({ type: 'container', elements: [{ type: 'image', src: 'https://img.example/a.webp' }] }),
    `Card message is invalid: ${m0}.elements[0].src: only jpg, jpeg, gif, png images are allowed, not .webp`,
    `卡片消息不合法：${m0}.elements[0].src：只允许 jpg、jpeg、gif、png 图片，不能是 .webp`,
  ],
  [
    'a count across cards',
    [
      { type: 'card', modules: times(30, { type: 'divider' }) },
      { type: 'card', modules: times(21, { type: 'divider' }) },
    ],
    'Card message is invalid: card[1].modules[20]: all cards together hold at most 50 modules',
    '卡片消息不合法：card[1].modules[20]：所有卡片合计最多包含 50 个模块',
  ],
  [
    'a time in the past, in seconds',
    card({ type: 'countdown', mode: 'day', endTime: Math.floor(NOW / 1000) }),
    `Card message is invalid: ${m0}.endTime: must not lie in the past (it looks like seconds; times are in milliseconds)`,
    `卡片消息不合法：${m0}.endTime：不能是过去的时间（看起来是秒；时间以毫秒为单位）`,
  ],
];

describe('a card error speaks the reader language', () => {
  it.each(KINDS)('%s', (_kind, value, en, zh) => {
    const error = refusal(() => validateCard(value, NOW));
    expect(error.localizedMessage('en-US')).toBe(en);
    expect(error.message).toBe(en);
    expect(error.localizedMessage('zh-CN')).toBe(zh);
    expect(englishWords(error.rule['zh-CN'])).toEqual([]);
    // The API field stays the English rule, a string.
    expect(error.data?.rule).toBe(error.rule['en-US']);
  });

  it('names the place in the rendered text in each language', () => {
    const text = `[{"type": "card", "modules": [\n  {"type": "countdown", "mode": "day", "endTime": ${LATER}, "startTime": 1}\n]}]`;
    const column = (text.split('\n')[1] ?? '').indexOf('"startTime"') + 1;
    const error = refusal(() => convertCard(text, 'json', NOW));
    expect(error.localizedMessage('en-US')).toBe(
      `Card message is invalid: line 2, column ${column}: ${m0}.startTime: is allowed only with mode second`,
    );
    expect(error.localizedMessage('zh-CN')).toBe(
      `卡片消息不合法：第 2 行第 ${column} 列，${m0}.startTime：只能在 mode second 时使用`,
    );
    expect(error.data).toMatchObject({ rule: 'is allowed only with mode second', line: 2, column });
  });
});

describe('every rule and name of the card schema', () => {
  /** Each `x-rules` rule and `x-name` name of the schema, with where it is. */
  function annotations(): [where: string, text: unknown][] {
    const found: [string, unknown][] = [];
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) {
        for (const [i, n] of node.entries()) walk(n, `${where}/${i}`);
        return;
      }
      if (typeof node !== 'object' || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'x-name') found.push([`${where}/x-name`, value]);
        else if (key === 'x-rules') {
          for (const [keyword, rule] of Object.entries(value as object)) {
            // A pair reports on a field of the object: its second part is the rule.
            found.push([`${where}/x-rules/${keyword}`, Array.isArray(rule) ? rule[1] : rule]);
          }
        } else walk(value, `${where}/${key}`);
      }
    };
    walk(CARD_MESSAGE_SCHEMA, '');
    return found;
  }

  it('is written in both languages, neither empty, the Chinese without English words', () => {
    const found = annotations();
    expect(found.length).toBeGreaterThan(50);
    for (const [where, text] of found) {
      expect(typeof text, where).toBe('object');
      const texts = text as Record<string, unknown>;
      expect(Object.keys(texts).sort(), where).toEqual([...LANGS].sort());
      for (const lang of LANGS) {
        expect(typeof texts[lang], `${where} ${lang}`).toBe('string');
        expect(String(texts[lang]).trim(), `${where} ${lang}`).not.toBe('');
      }
      expect(englishWords(String(texts['zh-CN'])), where).toEqual([]);
      expect(texts['zh-CN'], where).not.toBe(texts['en-US']);
    }
  });
});
