import { describe, expect, it } from 'vitest';
import { convertCard } from '../../../src/render/cards/index.js';
import { attributeValue, normalizeText } from '../../../src/render/cards/xml-mapping.js';
import { NOW } from './helpers.js';

describe('XML attribute typing', () => {
  it('types only the numeric and boolean fields, from the schema', () => {
    expect(attributeValue('paragraph', 'cols', '2')).toBe(2);
    expect(attributeValue('countdown', 'endTime', ' 1700000000000 ')).toBe(1_700_000_000_000);
    expect(attributeValue('plain-text', 'emoji', 'false')).toBe(false);
    expect(attributeValue('image', 'circle', 'true')).toBe(true);
    // Same values on string fields stay strings.
    expect(attributeValue('button', 'value', '2')).toBe('2');
    expect(attributeValue('image', 'alt', 'true')).toBe('true');
    expect(attributeValue('invite', 'code', '123')).toBe('123');
  });
  it('leaves a malformed number or boolean as text, for validation to name', () => {
    expect(attributeValue('paragraph', 'cols', 'two')).toBe('two');
    expect(attributeValue('image', 'circle', 'yes')).toBe('yes');
    expect(() =>
      convertCard('<card><container><image src="a.png" circle="yes"/></container></card>', 'xml', NOW),
    ).toThrow('card[0].modules[0].elements[0].circle: must be true or false');
  });
});

describe('XML text whitespace', () => {
  it('keeps one-line text exactly', () => {
    expect(normalizeText('  hi  ')).toBe('  hi  ');
  });
  it('drops blank leading and trailing lines, keeps the rest exactly', () => {
    expect(normalizeText('\n    \n  a\n\n   b  \n  ')).toBe('  a\n\n   b  ');
    expect(normalizeText('\r\n a\r\n')).toBe(' a');
  });
  it('makes whitespace-only text with a line break empty', () => {
    expect(normalizeText('\n   \n')).toBe('');
  });
  it('keeps a plain-text content "123" a string', () => {
    const [card] = convertCard('<card><section><plain-text>123</plain-text></section></card>', 'xml', NOW);
    expect(card?.modules[0]).toEqual({ type: 'section', text: { type: 'plain-text', content: '123' } });
  });
});

describe('XML slots', () => {
  it('takes a header text as attribute, wrapper, direct text or element alike', () => {
    const expected = [{ type: 'card', modules: [{ type: 'header', text: 'Hi' }] }];
    for (const header of ['<header text="Hi"/>', '<header><text>Hi</text></header>', '<header>Hi</header>']) {
      expect(convertCard(`<card>${header}</card>`, 'xml', NOW)).toEqual(expected);
    }
  });
  it('refuses text mixed with elements in a slot type', () => {
    expect(() => convertCard('<card><section>hi<image src="a.png"/></section></card>', 'xml', NOW)).toThrow(
      'line 1, column 7: <section> mixes text and elements; wrap the text in <text>',
    );
  });
  it('gives an empty <text/> as an empty bare string', () => {
    expect(convertCard('<card><section><text/></section></card>', 'xml', NOW)).toEqual([
      { type: 'card', modules: [{ type: 'section', text: '' }] },
    ]);
  });
});
