import { describe, expect, it } from 'vitest';
import {
  CardInvalidError,
  type CardMessage,
  type CardModule,
  KMARKDOWN_MAX,
  MAX_CARDS,
  MAX_MODULES_TOTAL,
  PLAIN_TEXT_MAX,
  validateCard,
} from '../../src/render/cards/index.js';
import { MessageTooLongError } from '../../src/render/errors/message-too-long-error.js';
import { fitCards, fitKmarkdown, TRUNCATION_MARKER } from '../../src/render/fit.js';
import { splitText, truncateText } from '../../src/render/fit-text.js';
import { renderMessage } from '../../src/render/index.js';
import { MAX_MESSAGE_LENGTH } from '../../src/render/limits.js';
import { mbLength as codePoints } from '../../src/render/twig/runtime/mb.js';

const NOW = 1_700_000_000_000;

/** A small seeded generator (mulberry32), so that a failing case can be run again. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)) };
}
const SEEDS = Array.from({ length: 40 }, (_, i) => i + 1);

const WORDS = [
  'alpha',
  '部署',
  'beta',
  'gamma😀',
  '**bold**',
  '`code x`',
  '[link](https://e.example/x y)',
  'δ',
];
/** Words, lines and paragraphs (and links, which must stay whole), no code blocks. */
function randomText(r: ReturnType<typeof rng>, words: number): string {
  let out = '';
  for (let i = 0; i < words; i++) {
    const w = WORDS[r.int(0, WORDS.length - 1)] as string;
    const gap = r.next();
    out += i === 0 ? '' : gap < 0.05 ? '\n\n' : gap < 0.15 ? '\n' : ' ';
    out += w === '[link](https://e.example/x y)' ? `[link ${i}](https://e.example/${i})` : w;
  }
  return out;
}
const noSpace = (s: string) => s.replace(/\s+/g, '');

describe('splitText', () => {
  it('keeps text within its limit as it is', () => {
    expect(splitText('short', 10, true)).toEqual(['short']);
    expect(splitText('', 10, true)).toEqual(['']);
  });

  it.each(SEEDS)('parts fit, keep every character in order, and never cut a link (seed %i)', (seed) => {
    const r = rng(seed);
    const max = r.int(100, 600);
    const text = randomText(r, r.int(50, 800));
    const parts = splitText(text, max, true);
    for (const p of parts) expect(codePoints(p)).toBeLessThanOrEqual(max);
    expect(noSpace(parts.join(''))).toBe(noSpace(text));
    for (const link of text.match(/\[link \d+\]\([^)]*\)/g) ?? []) {
      expect(parts.some((p) => p.includes(link))).toBe(true);
    }
  });

  it('cuts between paragraphs first, then lines, then words', () => {
    const para = `${'a'.repeat(60)}\n\n${'b'.repeat(30)}\n${'c'.repeat(20)} ${'d'.repeat(20)}`;
    expect(splitText(para, 100, true)[0]).toBe('a'.repeat(60));
    expect(splitText(`${'a'.repeat(60)}\n${'b'.repeat(60)}`, 100, true)).toEqual([
      'a'.repeat(60),
      'b'.repeat(60),
    ]);
    expect(splitText(`${'a '.repeat(40)}${'b'.repeat(40)}`, 100, true)[0]).toMatch(/^(a )+a$/);
  });

  it('counts code points, not UTF-16 units, and never splits a surrogate pair', () => {
    const text = '😀'.repeat(250);
    const parts = splitText(text, 100, false);
    expect(parts.map(codePoints)).toEqual([100, 100, 50]);
    expect(parts.join('')).toBe(text);
  });

  it('closes a code block at the end of a part and opens it again, with its language, in the next', () => {
    const code = Array.from({ length: 40 }, (_, i) => `line ${i} of the log`).join('\n');
    const text = `Intro\n\n\`\`\`js\n${code}\n\`\`\`\nAfter`;
    const parts = splitText(text, 200, true);
    expect(parts.length).toBeGreaterThan(2);
    for (const p of parts) {
      expect(codePoints(p)).toBeLessThanOrEqual(200);
      // Every part's fences pair up.
      expect((p.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
    expect(parts[1]?.startsWith('```js\n')).toBe(true);
    const lines = parts
      .join('\n')
      .split('\n')
      .filter((l) => l.startsWith('line '));
    expect(lines).toEqual(code.split('\n'));
  });

  it('cuts a text with no break at its limit', () => {
    expect(splitText('x'.repeat(250), 100, true)).toEqual(['x'.repeat(100), 'x'.repeat(100), 'x'.repeat(50)]);
  });
});

describe('truncateText', () => {
  it('cuts to the limit and ends with the marker', () => {
    const out = truncateText(`${'word '.repeat(100)}`, 100, true);
    expect(codePoints(out)).toBeLessThanOrEqual(100);
    expect(out.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(out.startsWith('word word')).toBe(true);
  });
  it('leaves text within its limit alone', () => {
    expect(truncateText('fine', 100, true)).toBe('fine');
  });
});

describe('fitKmarkdown', () => {
  const long = randomText(rng(7), 3000);
  it('splits over MAX_MESSAGE_LENGTH, fails or truncates as asked', () => {
    expect(codePoints(long)).toBeGreaterThan(MAX_MESSAGE_LENGTH);
    const split = fitKmarkdown(long, 'split');
    expect(split.fitted).toBe('split');
    expect(split.parts.length).toBeGreaterThan(1);
    for (const p of split.parts) expect(codePoints(p)).toBeLessThanOrEqual(MAX_MESSAGE_LENGTH);
    expect(noSpace(split.parts.join(''))).toBe(noSpace(long));
    const cut = fitKmarkdown(long, 'truncate');
    expect(cut).toMatchObject({ fitted: 'truncated' });
    expect(cut.parts).toHaveLength(1);
    expect(cut.parts[0]?.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(() => fitKmarkdown(long, 'fail')).toThrow(MessageTooLongError);
  });
  it('leaves a message that fits alone', () => {
    expect(fitKmarkdown('hi', 'split')).toEqual({ parts: ['hi'], fitted: null });
  });
});

const kmd = (content: string) => ({ type: 'kmarkdown', content });
const divider = { type: 'divider' };
const section = (content: string) => ({ type: 'section', text: kmd(content) });
const cardOf = (modules: unknown[], extra: Record<string, unknown> = {}) => ({
  type: 'card',
  ...extra,
  modules,
});

/** Every module's text (or its type) in order, whitespace aside: what a split must keep. */
function stream(messages: readonly CardMessage[]): string {
  const textOf = (m: CardModule): string => {
    if (m.type === 'section' && typeof m.text !== 'string' && m.text.type !== 'paragraph')
      return m.text.content;
    if (m.type === 'section' && typeof m.text === 'string') return m.text;
    if (m.type === 'header') return typeof m.text === 'string' ? m.text : m.text.content;
    if (m.type === 'context')
      return m.elements.map((e) => (typeof e === 'string' ? e : 'content' in e ? e.content : '')).join('');
    return `<${m.type}>`;
  };
  return noSpace(messages.flatMap((cards) => cards.flatMap((c) => c.modules.map(textOf))).join(''));
}

describe('fitCards', () => {
  it('answers a card message that fits as it is', () => {
    const value = [cardOf([section('hi')])];
    expect(fitCards(value, 'split', NOW)).toEqual({ cards: [value], fitted: null });
  });

  it.each(SEEDS)('splits into valid messages that keep every module in order (seed %i)', (seed) => {
    const r = rng(seed * 31);
    const cards = Array.from({ length: r.int(1, 12) }, (_, c) =>
      cardOf(
        Array.from({ length: r.int(0, 70) }, () => {
          const k = r.next();
          if (k < 0.2) return divider;
          if (k < 0.3) return { type: 'header', text: { type: 'plain-text', content: `H${c}` } };
          if (k < 0.35)
            return {
              type: 'context',
              elements: [{ type: 'plain-text', content: 'p'.repeat(r.int(1, 4500)) }],
            };
          return section(randomText(r, r.next() < 0.1 ? r.int(800, 2500) : r.int(1, 30)));
        }),
        {
          theme: r.next() < 0.3 ? 'invisible' : 'success',
          color: `#${String(c).padStart(6, '0')}`,
          size: 'sm',
        },
      ),
    );
    const original = JSON.parse(JSON.stringify(cards)) as CardMessage;
    const { cards: messages } = fitCards(cards, 'split', NOW);
    for (const m of messages) expect(() => validateCard(m, NOW)).not.toThrow();
    expect(stream(messages)).toBe(stream([original]));
    // Each card's runs keep its theme, colour and size, in the cards' order.
    const colours = messages.flatMap((m) => m.map((c) => c.color));
    expect([...new Set(colours)]).toEqual(original.map((c) => c.color));
    for (const m of messages) {
      for (const c of m) {
        const from = original.find((o) => o.color === c.color);
        expect([c.theme, c.size]).toEqual([from?.theme, from?.size]);
      }
    }
    // The input is not changed.
    expect(cards).toEqual(original);
  });

  it('puts whole cards together and cuts only a card over 50 modules', () => {
    const value = [
      cardOf(Array(30).fill(divider)),
      cardOf(Array(30).fill(divider)),
      cardOf(Array(120).fill(divider)),
      ...Array(6).fill(cardOf([divider])),
    ];
    const { cards, fitted } = fitCards(value, 'split', NOW);
    expect(fitted).toBe('split');
    expect(cards.map((m) => m.map((c) => c.modules.length))).toEqual([
      [30],
      [30],
      [50],
      [50],
      [20, 1, 1, 1, 1],
      [1, 1],
    ]);
  });

  it('does not end a run with a header', () => {
    const modules = [
      ...Array(49).fill(divider),
      { type: 'header', text: 'Next' },
      ...Array(10).fill(divider),
    ];
    const { cards } = fitCards([cardOf(modules)], 'split', NOW);
    expect(cards.map((m) => m[0]?.modules.length)).toEqual([49, 11]);
    expect(cards[1]?.[0]?.modules[0]).toEqual({ type: 'header', text: 'Next' });
  });

  it('splits a long section into sections, the accessory staying with the first', () => {
    const text = randomText(rng(3), 2500);
    const accessory = { type: 'image', src: 'https://img.example/a.png' };
    const { cards } = fitCards(
      [cardOf([{ type: 'section', text: kmd(text), mode: 'right', accessory }])],
      'split',
      NOW,
    );
    expect(cards).toHaveLength(1);
    const modules = cards[0]?.[0]?.modules ?? [];
    expect(modules.length).toBeGreaterThan(1);
    expect(modules[0]).toMatchObject({ accessory, mode: 'right' });
    expect(modules.slice(1).every((m) => !('accessory' in m))).toBe(true);
    for (const m of modules)
      expect(codePoints((m as { text: { content: string } }).text.content)).toBeLessThanOrEqual(
        KMARKDOWN_MAX,
      );
  });

  it('splits plain text at its own limit and cuts a long header with an ellipsis', () => {
    const { cards } = fitCards(
      [
        cardOf([
          { type: 'header', text: 'H'.repeat(150) },
          { type: 'section', text: 'w '.repeat(3000) },
        ]),
      ],
      'split',
      NOW,
    );
    const modules = cards[0]?.[0]?.modules ?? [];
    expect(modules[0]).toEqual({ type: 'header', text: `${'H'.repeat(99)}…` });
    expect(modules.length).toBe(1 + Math.ceil(6000 / PLAIN_TEXT_MAX));
  });

  it('truncates to one message ending with a marker', () => {
    const value = [cardOf(Array(40).fill(divider)), cardOf(Array(40).fill(divider))];
    const { cards, fitted } = fitCards(value, 'truncate', NOW);
    expect(fitted).toBe('truncated');
    expect(cards).toHaveLength(1);
    const [only] = cards as [CardMessage];
    expect(only.map((c) => c.modules.length)).toEqual([40, 10]);
    expect(only[1]?.modules.at(-1)).toEqual({
      type: 'context',
      elements: [{ type: 'plain-text', content: TRUNCATION_MARKER }],
    });
    expect(() => validateCard(only, NOW)).not.toThrow();
    const six = fitCards(Array(MAX_CARDS + 1).fill(cardOf([divider])), 'truncate', NOW).cards[0] ?? [];
    expect(six).toHaveLength(MAX_CARDS);
    expect(six.at(-1)?.modules.at(-1)?.type).toBe('context');
    const long = fitCards([cardOf([section('x '.repeat(4000))])], 'truncate', NOW).cards[0]?.[0]?.modules[0];
    expect((long as { text: { content: string } }).text.content.endsWith(TRUNCATION_MARKER)).toBe(true);
  });

  it('fails as before with overflow fail, and fails a fault no fit mends in any mode', () => {
    const big = Array(MAX_CARDS + 1).fill(cardOf([divider]));
    expect(() => fitCards(big, 'fail', NOW)).toThrow(/at most 5 cards/);
    const badImage = [...big, cardOf([{ type: 'image-group', elements: [{ type: 'image', src: 'x.bmp' }] }])];
    expect(() => fitCards(badImage, 'split', NOW)).toThrow(CardInvalidError);
    expect(() => fitCards(badImage, 'split', NOW)).toThrow(/card\[6\]/);
    const longButton = [
      cardOf([
        { type: 'action-group', elements: [{ type: 'button', text: 'b'.repeat(PLAIN_TEXT_MAX + 1) }] },
      ]),
    ];
    expect(() => fitCards(longButton, 'split', NOW)).toThrow(/plain-text content is at most/);
    expect(MAX_MODULES_TOTAL).toBe(50);
  });
});

describe('renderMessage with an overflow', () => {
  const many =
    '[{% for c in 1..7 %}{"type":"card","modules":[{"type":"divider"}]}{% if not loop.last %},{% endif %}{% endfor %}]';
  it('answers the parts of a split message, the whole for the record', () => {
    const out = renderMessage({ content: many, msgtype: 2 }, {}, {}, { now: NOW }, 'split');
    expect(out.type).toBe(10);
    expect(out.parts?.map((p) => (JSON.parse(p) as unknown[]).length)).toEqual([5, 2]);
    expect(JSON.parse(out.content)).toHaveLength(7);
    const text = renderMessage(
      { content: '{% for i in 1..9000 %}x {% endfor %}', msgtype: 1 },
      {},
      {},
      {},
      'split',
    );
    expect(out.parts).toBeDefined();
    expect(text.parts?.length).toBe(3);
    expect(text.content).toHaveLength(18_000);
  });
  it('answers one message when truncating, and fails by default', () => {
    const out = renderMessage({ content: many, msgtype: 2 }, {}, {}, { now: NOW }, 'truncate');
    expect(out.parts).toBeUndefined();
    expect(JSON.parse(out.content)).toHaveLength(MAX_CARDS);
    expect(() => renderMessage({ content: many, msgtype: 2 }, {}, {}, { now: NOW })).toThrow(
      /at most 5 cards/,
    );
  });
  it('places a fault no fit mends in the rendered text', () => {
    const bad =
      '[{"type":"card","modules":[]},{"type":"card","modules":[]},{"type":"card","modules":[]},\n{"type":"card","modules":[]},{"type":"card","modules":[]},\n{"type":"card","theme":"plaid","modules":[]}]';
    const err = (() => {
      try {
        renderMessage({ content: bad, msgtype: 2 }, {}, {}, { now: NOW }, 'split');
      } catch (e) {
        return e;
      }
    })() as CardInvalidError;
    expect(err).toBeInstanceOf(CardInvalidError);
    expect(err.path).toBe('card[5].theme');
    expect(err.position?.line).toBe(3);
  });
});
