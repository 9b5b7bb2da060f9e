import { describe, expect, it } from 'vitest';
import { firstJsonError } from '../../../src/render/cards/json-first-error.js';
import { seeded } from '../../helpers/seeded.js';

const DOCS = [
  '[{"type":"card","theme":"info","modules":[{"type":"section","text":{"type":"kmarkdown","content":"**hi** \\u4f60"}}]}]',
  '{"a":[1,-2.5e+3,0,true,false,null],"b":{"c":"d\\n\\"e\\\\"},"f":[]}',
  ' [ {} , [ [ ] ] , "x" , 1E9 , -0.0 ] ',
  '"just a string"',
];
const NOISE = [
  '',
  ',',
  ':',
  '"',
  '{',
  '}',
  '[',
  ']',
  '-',
  '.',
  'e',
  '0',
  '1',
  't',
  'n',
  ' ',
  '\\',
  '\n',
  'x',
];

/** V8's own position, where its message gives one (this test only: the code never reads it). */
function v8Position(text: string): number | null | 'valid' {
  try {
    JSON.parse(text);
    return 'valid';
  } catch (err) {
    const m = /at position (\d+)/.exec((err as Error).message);
    if (m) return Number(m[1]);
    return /end of JSON input/.test((err as Error).message) ? text.length : null;
  }
}

describe('firstJsonError', () => {
  it.each([
    ['[{"type":"card",\n  "modules":[],}]', 32, 'Expected double-quoted property name'],
    ['{,}', 1, "Expected property name or '}'"],
    ['{"a" 1}', 5, "Expected ':' after property name"],
    ['[1 2]', 3, "Expected ',' or ']' after array element"],
    ['{"a":1', 6, "Expected ',' or '}' after property value"],
    ['[1,]', 3, "Unexpected token ']'"],
    ['', 0, 'Unexpected end of JSON input'],
    ['"a\nb"', 2, 'Bad control character in string literal'],
    ['"\\x"', 2, 'Bad escaped character'],
    ['[-]', 2, 'No number after minus sign'],
    ['1.', 2, 'Unterminated fractional number'],
    ['1e+', 3, 'Exponent part is missing a number'],
    ['[tru]', 4, "Unexpected token ']'"],
    ['{} x', 3, 'Unexpected non-whitespace character after JSON'],
    ['"open', 5, 'Unterminated string'],
  ])('names the place and the V8 wording of a common mistake: %j', (text, offset, message) => {
    expect(firstJsonError(text)).toEqual({ offset, message });
  });

  it('agrees with JSON.parse on 4,000 mutated documents: valid or not, and where V8 says', () => {
    const random = seeded(0x15a);
    let compared = 0;
    for (let k = 0; k < 4_000; k++) {
      let text = DOCS[k % DOCS.length]!;
      const edits = 1 + Math.floor(random() * 3);
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(random() * (text.length + 1));
        const cut = Math.floor(random() * 3);
        text = text.slice(0, at) + NOISE[Math.floor(random() * NOISE.length)] + text.slice(at + cut);
      }
      const v8 = v8Position(text);
      const ours = firstJsonError(text);
      if (v8 === 'valid') {
        expect(ours, JSON.stringify(text)).toBeNull();
        continue;
      }
      expect(ours, JSON.stringify(text)).not.toBeNull();
      if (v8 !== null) {
        expect([text, ours?.offset, ours?.message]).toEqual([text, v8, ours?.message]);
        compared++;
      }
    }
    // Most failures carry a position; the comparison must not have been skipped wholesale.
    expect(compared).toBeGreaterThan(2_000);
  });

  it('scans a deeply nested text without recursion', () => {
    expect(firstJsonError(`${'['.repeat(200_000)}${']'.repeat(199_999)}`)).toEqual({
      offset: 399_999,
      message: "Expected ',' or ']' after array element",
    });
  });
});
