import { describe, expect, it } from 'vitest';
import { CardInvalidError, convertCard } from '../../../src/render/cards/index.js';
import { locateCardValue } from '../../../src/render/cards/locate.js';
import type { CardFormat } from '../../../src/render/cards/types.js';
import { NOW } from './helpers.js';

/** The error convertCard throws for `text`, which must be an invalid card. */
function invalid(text: string, format: CardFormat): CardInvalidError {
  try {
    convertCard(text, format, NOW);
  } catch (err) {
    if (err instanceof CardInvalidError) return err;
    throw err;
  }
  throw new Error('the card was accepted');
}

/** The 1-based line and column of the first occurrence of `marker` in `text`. */
function at(text: string, marker: string): { line: number; column: number } {
  const offset = text.indexOf(marker);
  expect(offset, `${marker} is in the text`).toBeGreaterThanOrEqual(0);
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

const JSON_CARD = `[
  {
    "type": "card",
    "theme": "info",
    "modules": [
      { "type": "header", "text": { "type": "plain-text", "content": "a \\"quoted\\" ] {brace}" } },
      {
        "type": "section",
        "text": { "type": "kmarkdown", "content": "fine" },
        "mode": "sideways"
      },
      { "type": "divider" }
    ]
  }
]`;

describe('an invalid card points at its value in the rendered text', () => {
  it('JSON: the offending member, past strings holding brackets and escaped quotes', () => {
    const error = invalid(JSON_CARD, 'json');
    expect(error.path).toBe('card[0].modules[1].mode');
    expect(error.position).toEqual(at(JSON_CARD, '"mode"'));
    expect(error.data).toMatchObject({
      path: 'card[0].modules[1].mode',
      line: 10,
      column: 9,
      excerpt: '        "mode": "sideways"',
    });
    expect(error.params.detail).toEqual({
      'zh-CN': `第 10 行第 9 列，card[0].modules[1].mode：${error.rule['zh-CN']}`,
      'en-US': `line 10, column 9: card[0].modules[1].mode: ${error.rule['en-US']}`,
    });
  });

  it('JSON: a missing field points at the object that lacks it', () => {
    const text = '[{"type": "card", "modules": [\n  {"type": "divider"},\n  {"type": "section"}\n]}]';
    const error = invalid(text, 'json');
    expect(error.path).toBe('card[0].modules[1].text');
    expect(error.rule).toEqual({ 'zh-CN': '为必填项', 'en-US': 'is required' });
    expect(error.position).toEqual({ line: 3, column: 3 });
    expect(error.excerpt).toBe('  {"type": "section"}');
  });

  it('JSON: of duplicate keys the last one, as JSON.parse keeps it', () => {
    const text = '[{"type": "card",\n"theme": "info",\n"theme": "plaid",\n"modules": []}]';
    const error = invalid(text, 'json');
    expect(error.path).toBe('card[0].theme');
    expect(error.position?.line).toBe(3);
  });

  it('YAML: the key of the offending member, and a list item where it starts', () => {
    const text = [
      '- type: card',
      '  modules:',
      '    - type: divider',
      '    - type: section',
      '      text: "fine"',
      '      mode: sideways',
    ].join('\n');
    const error = invalid(text, 'yaml');
    expect(error.path).toBe('card[0].modules[1].mode');
    expect(error.position).toEqual(at(text, 'mode:'));
    expect(error.excerpt).toBe('      mode: sideways');

    const missing = '- type: card\n  modules:\n    - type: divider\n    - type: section\n';
    const lacking = invalid(missing, 'yaml');
    expect(lacking.path).toBe('card[0].modules[1].text');
    expect(lacking.position).toEqual(at(missing, 'type: section'));
  });

  it('XML: at the attribute that holds the field, else at the element', () => {
    const text = [
      '<card theme="info">',
      '  <divider/>',
      '  <section mode="sideways">',
      '    <text>fine</text>',
      '  </section>',
      '</card>',
    ].join('\n');
    const error = invalid(text, 'xml');
    expect(error.path).toBe('card[0].modules[1].mode');
    expect(error.position).toEqual(at(text, 'mode='));

    const six = Array.from({ length: 6 }, (_, i) => `    <button value="${i}">b${i}</button>`);
    const crowded = `<card>\n  <action-group>\n${six.join('\n')}\n  </action-group>\n</card>`;
    const tooMany = invalid(crowded, 'xml');
    expect(tooMany.path).toBe('card[0].modules[0].elements');
    expect(tooMany.position).toEqual(at(crowded, '<action-group>'));
  });

  it('XML: an attribute is found by its name, not inside another value', () => {
    const text =
      '<card>\n  <action-group>\n    <button value="x click=y" click="nope">b</button>\n  </action-group>\n</card>';
    const error = invalid(text, 'xml');
    expect(error.path).toBe('card[0].modules[0].elements[0].click');
    expect(error.position).toEqual(at(text, 'click="nope"'));
  });

  it('rules checked across cards point at their module too', () => {
    const text = `[{"type": "card", "modules": [\n  {"type": "countdown", "mode": "day", "endTime": ${NOW - 1}}\n]}]`;
    const error = invalid(text, 'json');
    expect(error.path).toBe('card[0].modules[0].endTime');
    expect(error.position).toEqual(at(text, '"endTime"'));
  });

  it('a path that leads nowhere at all stops at the top of the text', () => {
    expect(locateCardValue('  {"a": 1}', 'json', ['b', 3])).toBe(2);
    expect(locateCardValue('[1, 2]', 'json', [5])).toBe(0);
    expect(locateCardValue('[1, [2, 3]]', 'json', [1, 1])).toBe(8);
    expect(locateCardValue('a: 1\nb: [x, y]\n', 'yaml', ['b', 1])).toBe(12);
  });
});
