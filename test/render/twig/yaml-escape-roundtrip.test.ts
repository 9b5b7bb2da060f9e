// Property test of yaml_escape's promise (spec: escaped text cannot break the message): a string
// through yaml_escape(0) inside "double quotes", or yaml_escape(1) inside 'single quotes', reads
// back through Herald's YAML card parser as that string, in every position a YAML card can hold a
// scalar. Strings are drawn by a seeded generator (test/helpers/seeded.ts), so a failure names a
// case that reproduces on every run.
import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../../src/render/cards/parse-yaml.js';
import { yamlEscape } from '../../../src/render/twig/filters/platform-filters.js';
import { seeded } from '../../helpers/seeded.js';
import { render } from './helpers.js';

/** Pieces that mean something to YAML or to a line-based reader, and plain text between them. */
const PIECES = [
  "'",
  "''",
  '"',
  '\\',
  '\\n',
  ': ',
  ':',
  ' #',
  '#',
  '- ',
  '-',
  '? ',
  '---',
  '...',
  '{',
  '}',
  '[',
  ']',
  ',',
  '&a',
  '*a',
  '!!str',
  '%YAML',
  '@',
  '`',
  '|',
  '>',
  '\n',
  '\n\n',
  '\r\n',
  '\r',
  '\t',
  ' ',
  '  ',
  '\u0085',
  '\u2028',
  '\u2029',
  '\u0000',
  '\u0001',
  '\u0008',
  '\u000b',
  '\u000c',
  '\u001b',
  '\u001f',
  '\u007f',
  '\u0080',
  '\u009f',
  '\u00a0',
  '\ufeff',
  '\ufffe',
  '\uffff',
  'é',
  '中文',
  '😀',
  '👨‍👩‍👧',
  'yes',
  'null',
  '~',
  '0x1F',
  '1e3',
  'a',
  'word',
];

function randomString(next: () => number): string {
  const parts = Math.floor(next() * 12);
  let s = next() < 0.2 ? '- ' : '';
  for (let k = 0; k < parts; k++) {
    if (next() < 0.25) {
      // any code point, astral ones included (never a lone surrogate: YAML text is UTF-8)
      let cp = Math.floor(next() * 0x110000);
      if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
      s += String.fromCodePoint(cp);
    } else s += PIECES[Math.floor(next() * PIECES.length)];
  }
  return s;
}

/** Each position a card can hold a quoted scalar in, with the path to read the value back. */
const POSITIONS: ReadonlyArray<{
  name: string;
  yaml: (q: string) => string;
  /** Path to the value; a trailing `null` reads the first key of the map there. */
  path: ReadonlyArray<string | number | null>;
  singleLine?: boolean;
}> = [
  { name: 'root list item', yaml: (q) => `- ${q}\n`, path: [0] },
  { name: 'map value', yaml: (q) => `- v: ${q}\n  after: 1\n`, path: [0, 'v'] },
  {
    name: 'nested map value',
    yaml: (q) =>
      `- type: card\n  modules:\n    - type: section\n      text:\n        type: kmarkdown\n        content: ${q}\n      mode: right\n`,
    path: [0, 'modules', 0, 'text', 'content'],
  },
  {
    name: 'nested list item',
    yaml: (q) =>
      `- type: card\n  modules:\n    - type: context\n      elements:\n        - ${q}\n        - x\n`,
    path: [0, 'modules', 0, 'elements', 0],
  },
  {
    name: 'value followed by a comment',
    yaml: (q) => `- a:\n    b: ${q} # note\n    c: 2\n`,
    path: [0, 'a', 'b'],
  },
  { name: 'flow list', yaml: (q) => `- k: [ ${q}, 2 ]\n`, path: [0, 'k', 0] },
  { name: 'flow map', yaml: (q) => `- k: { a: ${q}, b: 2 }\n`, path: [0, 'k', 'a'] },
  {
    name: 'value on its own line',
    yaml: (q) => `- modules:\n    - text:\n        content:\n          ${q}\n`,
    path: [0, 'modules', 0, 'text', 'content'],
  },
  {
    name: 'map key',
    yaml: (q) => `- fields:\n    ${q}: 1\n`,
    path: [0, 'fields', null],
    singleLine: true,
  },
];

function at(doc: unknown, path: ReadonlyArray<string | number | null>): unknown {
  let v = doc;
  for (const key of path) {
    const node = v as Record<string | number, unknown>;
    v = key === null ? Object.keys(node)[0] : node[key];
  }
  return v;
}

/** What single quotes can carry: YAML folding turns CR into LF and trims blanks at line breaks. */
function singleQuotedValue(s: string): string {
  return s.replace(/\r\n?/g, '\n').replace(/[ \t]*\n[ \t]*/g, '\n');
}

const RUNS = 150;

describe('yaml_escape round trip (seeded property test)', () => {
  it('mode 0 inside double quotes gives back exactly the string, in every position', () => {
    const next = seeded(0x9a11);
    for (let run = 0; run < RUNS; run++) {
      const s = randomString(next);
      const escaped = yamlEscape(s, 0);
      expect(escaped, 'one line').not.toMatch(/[\n\r\u0085\u2028\u2029]/);
      for (const p of POSITIONS) {
        const text = p.yaml(`"${escaped}"`);
        expect(at(parseYaml(text), p.path), `${p.name}: ${JSON.stringify(s)}`).toBe(s);
      }
    }
  });

  it('mode 1 inside single quotes gives back the string, in every position', () => {
    const next = seeded(0x51e7);
    for (let run = 0; run < RUNS; run++) {
      const s = randomString(next);
      const escaped = yamlEscape(s, 1);
      for (const p of POSITIONS) {
        if (p.singleLine && /[\r\n]/.test(s)) continue;
        const text = p.yaml(`'${escaped}'`);
        expect(at(parseYaml(text), p.path), `${p.name}: ${JSON.stringify(s)}`).toBe(singleQuotedValue(s));
      }
    }
  });

  it('mode 1 is exact for text without CR or blanks next to a line break', () => {
    for (const s of ['a\nb', 'a\n\nb', 'a\n\n\n\nb', '\nlead', 'trail\n', "it's\n'", '  x  ', 'é\n\n😀']) {
      expect(parseYaml(`- a:\n    b: '${yamlEscape(s, 1)}'\n`)).toEqual([{ a: { b: s } }]);
    }
    // k line breaks are written k + 1 times: folding gives k back (it used to give 2k - 1)
    expect(yamlEscape('a\n\nb', 1)).toBe('a\n\n\nb');
    expect(yamlEscape('a\r\n\r\nb\rc', 1)).toBe('a\n\n\nb\n\nc');
  });

  it('mode 0 escapes what YAML 1.1 readers take for line breaks and what YAML forbids raw', () => {
    expect(yamlEscape('\u0085\u2028\u2029\u0080\u009f\u007f\ufeff\ufffe\u0001', 0)).toBe(
      '\\N\\L\\P\\x80\\x9F\\x7F\\uFEFF\\uFFFE\\x01',
    );
    expect(yamlEscape('é中😀 \u00a0', 0)).toBe('é中😀 \u00a0');
  });

  it('works the same through a template, where the data comes from a sender', () => {
    const template =
      '- type: card\n  modules:\n    - type: section\n      text:\n        type: kmarkdown\n        content: \'{{ data.s|yaml_escape(1) }}\'\n        title: "{{ data.s|yaml_escape }}"\n';
    const s = "Fix: it's #1\n\n- not a list\nkey: value";
    const card = parseYaml(render(template, { s }));
    expect(at(card, [0, 'modules', 0, 'text', 'content'])).toBe(s);
    expect(at(card, [0, 'modules', 0, 'text', 'title'])).toBe(s);
  });
});
