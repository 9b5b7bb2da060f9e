import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { render } from './helpers.js';

const samples = [
  'plain',
  'He said "hi" \\ and left',
  "it's 'quoted'",
  'line1\nline2\n\nline4',
  'tab\there',
  'controls \u0000\u0001\u0007\u001b\u001f\u007f end',
  'cr\rhere',
  'emoji 😀 👨‍👩‍👧 CJK 中文 ünïcödé',
  'yaml: {not: [a, map]} # comment & *alias !tag %',
  '\u2028 separators \u2029',
];

describe('json_escape', () => {
  it('matches PHP json_encode(JSON_UNESCAPED_UNICODE|JSON_UNESCAPED_SLASHES) without quotes', () => {
    expect(render('{{ data.s|json_escape }}', { s: 'a"b\\c\n/é😀\u2028\u0001' })).toBe(
      'a\\"b\\\\c\\n/é😀\\u2028\\u0001',
    );
    expect(
      render(
        '{{ null|json_escape }}|{{ false|json_escape }}|{{ true|json_escape }}|{{ [1]|json_escape }}|{{ 1.5|json_escape }}',
      ),
    ).toBe('||1|Array|1.5');
  });

  it('escapes what needs it in short strings too (they take a scan before the encoder)', () => {
    const cases: [string, string][] = [
      ['a\u2028b', 'a\\u2028b'],
      ['\u2029', '\\u2029'],
      ['tab\t', 'tab\\t'],
      ['\u001f', '\\u001f'],
      ['q"', 'q\\"'],
      ['b\\', 'b\\\\'],
      ['lone \ud800 x', 'lone \\ud800 x'],
      ['pair 😀 中文 /', 'pair 😀 中文 /'],
      ['x'.repeat(300) + '\u2028', `${'x'.repeat(300)}\\u2028`],
    ];
    for (const [s, want] of cases) expect(render('{{ data.s|json_escape }}', { s })).toBe(want);
  });

  it('escapes short and long strings (the regex and the SIMD scan) exactly as the encoder does', () => {
    // JSON.stringify plus PHP's escape of U+2028/U+2029: the path short strings take
    const encoder = (s: string): string =>
      JSON.stringify(s)
        .slice(1, -1)
        .replace(/[\u2028\u2029]/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
    const alphabet = [
      'a',
      '"',
      '\\',
      '\n',
      '\r',
      '\t',
      '\u0000',
      '\u0001',
      '\u001f',
      ' ',
      '/',
      '\u007f',
      'é',
      '中',
      '\u2027',
      '\u2028',
      '\u2029',
      '\u202a',
      '\ud7ff',
      '\ud83d',
      '\ude00',
      '\udbff',
      '\udc00',
      '\udfff',
      '\ue000',
      '\uffff',
      '😀',
    ];
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const inputs: string[] = [
      `${'x'.repeat(299)}😀`, // a pair at the very end
      'x😀', // the same, short
      'x\ud83d', // a lone high surrogate at the end, short
      `${'x'.repeat(255)}\ud83d`, // a lone high surrogate at the end
      `${'x'.repeat(300)}\udc00 ${'y'.repeat(10)}`, // a lone low surrogate
      `${'x'.repeat(263)}😀${'y'.repeat(300)}`, // a pair across a block of eight
      'ab'.repeat(2000),
      `${'中'.repeat(70_000)}"`, // past the buffer's size
      `${'x'.repeat(65_535)}\u0001`, // the longest string the scan takes, an escape last
    ];
    // each kind of unit at every place in a chunk and at the string's end (the scan's lanes)
    for (const c of ['"', '\\', '\n', '\u0000', '\u001f', '\u2028', '\u2029', '😀', '\ud83d', '\ude00']) {
      for (let len = 256; len < 290; len++)
        inputs.push(`${'y'.repeat(len)}${c}`, `${c}${'中'.repeat(len)}${c}z`);
    }
    // most without lone surrogates: one sends the whole string back to the encoder
    const paired = alphabet.filter((c) => c.length === 2 || c < '\ud800' || c > '\udfff');
    for (let t = 0; t < 400; t++) {
      const from = t % 4 === 0 ? alphabet : paired;
      let s = '';
      const len = t % 2 === 0 ? next(256) : 256 + next(600);
      for (let i = 0; i < len; i++) s += next(3) === 0 ? from[next(from.length)] : 'b';
      inputs.push(s);
    }
    for (const s of inputs) {
      expect(render('{{ data.s|json_escape }}', { s }), JSON.stringify(s.slice(0, 40))).toBe(encoder(s));
    }
  });

  it('gives back the input when parsed as a JSON string', () => {
    for (const s of samples) expect(JSON.parse(`"${render('{{ data.s|json_escape }}', { s })}"`)).toBe(s);
  });
});

describe('yaml_escape', () => {
  it('mode 0 escapes for a double-quoted scalar and round-trips through the yaml package', () => {
    expect(render('{{ data.s|yaml_escape }}', { s: 'a"b\\c\n\t\u0001' })).toBe('a\\"b\\\\c\\n\\t\\x01');
    for (const s of samples) {
      const text = render('v: "{{ data.s|yaml_escape }}"', { s });
      expect(parse(text).v, JSON.stringify(s)).toBe(s);
    }
  });

  it('mode 1 escapes for a single-quoted scalar and round-trips through the yaml package', () => {
    expect(render('{{ data.s|yaml_escape(1) }}', { s: "it's\nok" })).toBe("it''s\n\nok");
    // A run of k line breaks is written k + 1 times, which folding reads back as k. A CR comes
    // back as LF and spaces next to a line break are trimmed: single quotes have no escapes.
    expect(parse(render("'{{ data.s|yaml_escape(1) }}'", { s: 'a\n\nb' }))).toBe('a\n\nb');
    for (const s of samples.filter((x) => !x.includes('\r'))) {
      // a document whose root is the scalar: continuation lines need no indentation there
      const text = render("'{{ data.s|yaml_escape(1) }}'", { s });
      expect(parse(text), JSON.stringify(s)).toBe(s);
    }
  });

  it('casts like PHP: null and false are empty, arrays read "Array"', () => {
    expect(render('[{{ null|yaml_escape }}][{{ [1]|yaml_escape(1) }}][{{ 1.0|yaml_escape }}]')).toBe(
      '[][Array][1]',
    );
  });
});

describe('kmd_escape', () => {
  it('returns its input unchanged', () => {
    expect(render('{{ "**bold** `x`"|kmd_escape }}|{{ data.n|kmd_escape + 1 }}', { n: 2 })).toBe(
      '**bold** `x`|3',
    );
  });
});
