import { Text } from '@codemirror/state';
import { describe, expect, it } from 'vitest';
import { Echoes } from '../../console/src/editor/echoes.ts';
import { languageOf } from '../../console/src/editor/language-of.ts';
import { markerRange, markerRanges } from '../../console/src/editor/marker-ranges.ts';
import { textChange } from '../../console/src/editor/text-change.ts';
import {
  FILTER_PARAMS,
  FUNCTION_PARAMS,
  PLATFORM_FILTERS,
  PLATFORM_METHOD_PARAMS,
  TAGS,
  TEST_PARAMS,
} from '../../console/src/editor/twig-vocabulary.ts';
import { FILTERS } from '../../src/render/twig/filters/index.ts';
import { FUNCTIONS, TESTS } from '../../src/render/twig/functions.ts';

const doc = Text.of(['{', '  "a": {{ data.x|bogus }},', '  "b": 1', '}']);
const marker = (line: number, column: number) => ({ line, column, message: 'm', severity: 'error' as const });

describe('markerRange', () => {
  it('covers the word at the 1-based line and column', () => {
    const r = markerRange(doc, marker(2, 18));
    expect(doc.sliceString(r.from, r.to)).toBe('bogus');
    expect(r).toMatchObject({ severity: 'error', message: 'm' });
  });

  it('covers one character where no word starts, and nothing at a line end', () => {
    const r = markerRange(doc, marker(2, 8));
    expect(doc.sliceString(r.from, r.to)).toBe('{');
    const end = markerRange(doc, marker(3, 99));
    expect(end.from).toBe(doc.line(3).to);
    expect(end.to).toBe(end.from);
  });

  it('clamps a place outside the text (the text changed since the render) into it', () => {
    expect(markerRange(doc, marker(40, 1)).from).toBe(doc.line(4).from);
    expect(markerRange(doc, marker(0, 0)).from).toBe(0);
    expect(markerRange(doc, marker(Number.NaN, 2)).from).toBe(1);
  });

  it('sorts markers into document order', () => {
    expect(markerRanges(doc, [marker(3, 3), marker(1, 1)]).map((r) => r.from)).toEqual([
      0,
      doc.line(3).from + 2,
    ]);
  });
});

describe('textChange', () => {
  it('replaces only what differs, keeping the common start and end', () => {
    expect(textChange('hello world', 'hello brave world')).toEqual({ from: 6, to: 6, insert: 'brave ' });
    expect(textChange('abc', 'abc')).toBeNull();
    expect(textChange('', 'x')).toEqual({ from: 0, to: 0, insert: 'x' });
    expect(textChange('aaa', 'aa')).toEqual({ from: 2, to: 3, insert: '' });
  });

  it('never splits a surrogate pair', () => {
    const before = 'a😀b';
    const after = 'a😃b';
    const c = textChange(before, after)!;
    expect(before.slice(0, c.from) + c.insert + before.slice(c.to)).toBe(after);
    expect(c.from).toBe(1);
    expect(c.insert).toBe('😃');
  });
});

describe('languageOf', () => {
  it('maps each msgtype to its editor language', () => {
    expect([1, 2, 3, 4, 99].map(languageOf)).toEqual([
      'twig-kmd',
      'twig-json',
      'twig-yaml',
      'twig-xml',
      'twig-kmd',
    ]);
  });
});

describe('the completion vocabulary', () => {
  it('lists exactly the filters Herald renders, with their parameters', () => {
    expect(Object.keys(FILTER_PARAMS).sort()).toEqual([...FILTERS.keys()].sort());
    for (const [name, def] of FILTERS) expect([name, FILTER_PARAMS[name]]).toEqual([name, def.params]);
    for (const own of PLATFORM_FILTERS) expect(FILTERS.has(own)).toBe(true);
  });

  it('lists exactly the functions and tests Herald has', () => {
    expect(Object.keys(FUNCTION_PARAMS).sort()).toEqual([...FUNCTIONS.keys()].sort());
    for (const [name, def] of FUNCTIONS) {
      if (!def.variadic) expect([name, FUNCTION_PARAMS[name]]).toEqual([name, def.params]);
    }
    expect(Object.keys(TEST_PARAMS).sort()).toEqual([...TESTS.keys()].sort());
  });

  it('lists the PLATFORM methods the renderer answers', async () => {
    const { readFileSync } = await import('node:fs');
    const source = readFileSync(new URL('../../src/render/platform.ts', import.meta.url), 'utf8');
    const methods = [...source.matchAll(/\[\s*'(get\w+|image)',/g)].map((m) => m[1]);
    expect(methods.sort()).toEqual(
      Object.keys(PLATFORM_METHOD_PARAMS)
        .map((m) => m.toLowerCase())
        .sort(),
    );
  });

  it('lists the tags the parser takes', async () => {
    const { readFileSync } = await import('node:fs');
    const source = readFileSync(new URL('../../src/render/twig/parser.ts', import.meta.url), 'utf8');
    const opening = [...source.matchAll(/case '(\w+)':/g)].map((m) => m[1]);
    for (const tag of opening) expect(TAGS).toContain(tag);
  });
});

describe('Echoes', () => {
  it('takes a value the editor reported as an echo, even one behind the latest text', () => {
    const e = new Echoes();
    e.reported('a');
    e.reported('ab');
    e.reported('abc');
    // The owner renders with 'ab' while 'abc' is already typed: not set back.
    expect(e.isEcho('ab')).toBe(true);
    expect(e.isEcho('abc')).toBe(true);
    // Everything reported has come back: the same text again is a change from outside.
    expect(e.isEcho('abc')).toBe(false);
  });

  it('takes any other value as a change from outside, forgetting what was awaited', () => {
    const e = new Echoes();
    e.reported('typed');
    expect(e.isEcho('loaded')).toBe(false);
    expect(e.isEcho('typed')).toBe(false);
  });

  it('remembers a bounded number of texts', () => {
    const e = new Echoes(2);
    e.reported('1');
    e.reported('2');
    e.reported('3');
    expect(e.isEcho('1')).toBe(false);
  });
});
