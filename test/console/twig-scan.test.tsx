import { describe, expect, it } from 'vitest';
import { regionAt, scanTwig, type TwigTokenKind } from '../../console/src/editor/twig-scan.ts';

/** The tokens of `text` as `kind:text` strings, for readable expectations. */
const tokens = (text: string): string[] =>
  scanTwig(text).tokens.map((t) => `${t.kind}:${text.slice(t.from, t.to)}`);
const kindsOf = (text: string, kind: TwigTokenKind): string[] =>
  scanTwig(text)
    .tokens.filter((t) => t.kind === kind)
    .map((t) => text.slice(t.from, t.to));

describe('scanTwig', () => {
  it('finds output, block and comment regions with their delimiters, leaving the format text alone', () => {
    const text = '{"a": "{{ data.x }}"}{% if y %}!{% endif %}{# note #}';
    const { regions } = scanTwig(text);
    expect(regions.map((r) => [r.kind, text.slice(r.from, r.to), r.closed])).toEqual([
      ['output', '{{ data.x }}', true],
      ['block', '{% if y %}', true],
      ['block', '{% endif %}', true],
      ['comment', '{# note #}', true],
    ]);
    expect(kindsOf(text, 'delimiter')).toEqual(['{{', '}}', '{%', '%}', '{%', '%}', '{#', '#}']);
    expect(kindsOf(text, 'comment')).toEqual([' note ']);
  });

  it('classifies names: tag, variable, property, filter, function, test, keyword, atom', () => {
    expect(tokens('{% for c in data.commits|slice(0, 3) if c is not empty and true %}')).toEqual([
      'delimiter:{%',
      'tag:for',
      'variable:c',
      'keyword:in',
      'variable:data',
      'punctuation:.',
      'property:commits',
      'punctuation:|',
      'filter:slice',
      'punctuation:(',
      'number:0',
      'punctuation:,',
      'number:3',
      'punctuation:)',
      'keyword:if',
      'variable:c',
      'keyword:is',
      'keyword:not',
      'test:empty',
      'keyword:and',
      'atom:true',
      'delimiter:%}',
    ]);
    expect(kindsOf('{{ PLATFORM.image(data.a)|json_escape }}', 'function')).toEqual(['image']);
    expect(kindsOf('{{ max(1, 2) }}', 'function')).toEqual(['max']);
  });

  it('keeps strings whole, with escapes and delimiters inside them', () => {
    const text = `{{ "a }} \\" b" ~ 'it\\'s %}' }}`;
    expect(kindsOf(text, 'string')).toEqual([`"a }} \\" b"`, `'it\\'s %}'`]);
    expect(scanTwig(text).regions[0]!.to).toBe(text.length);
  });

  it('does not end an output at the braces of a hash literal', () => {
    const text = "{{ {'a': {'b': 1}}|json_encode }} after";
    const r = scanTwig(text).regions[0]!;
    expect(text.slice(r.from, r.to)).toBe("{{ {'a': {'b': 1}}|json_encode }}");
  });

  it('takes trim marks (- and ~) as part of the delimiters', () => {
    const text = '{%- if a -%}x{{~ b ~}}{#- c -#}';
    expect(kindsOf(text, 'delimiter')).toEqual(['{%-', '-%}', '{{~', '~}}', '{#-', '-#}']);
    expect(kindsOf(text, 'operator')).toEqual([]);
  });

  it('runs an unclosed region to the end of the text', () => {
    const text = 'Hi {{ data.user.na';
    const [r] = scanTwig(text).regions;
    expect(r).toMatchObject({
      kind: 'output',
      from: 3,
      to: text.length,
      innerTo: text.length,
      closed: false,
    });
    expect(kindsOf(text, 'delimiter')).toEqual(['{{']);
  });

  it('leaves the inside of a verbatim block to the format', () => {
    const text = '{% verbatim %}{{ not twig }}{% endverbatim %}{{ yes }}';
    const { regions } = scanTwig(text);
    expect(regions.map((r) => text.slice(r.from, r.to))).toEqual([
      '{% verbatim %}',
      '{% endverbatim %}',
      '{{ yes }}',
    ]);
    expect(kindsOf(text, 'variable')).toEqual(['yes']);
  });

  it('colours operators, b-and style word operators and numbers with exponents', () => {
    expect(tokens('{{ a b-and 2 ?? 1.5e+3 }}')).toEqual([
      'delimiter:{{',
      'variable:a',
      'keyword:b-and',
      'number:2',
      'operator:??',
      'number:1.5e+3',
      'delimiter:}}',
    ]);
  });
});

describe('regionAt', () => {
  it('answers the region whose inside holds the position, and none between regions', () => {
    const text = 'x {{ a }} y {% b';
    const { regions } = scanTwig(text);
    expect(regionAt(regions, 0)).toBeUndefined();
    expect(regionAt(regions, 4)?.kind).toBe('output');
    expect(regionAt(regions, 7)?.kind).toBe('output');
    expect(regionAt(regions, 10)).toBeUndefined();
    expect(regionAt(regions, text.length)?.kind).toBe('block');
  });
});
