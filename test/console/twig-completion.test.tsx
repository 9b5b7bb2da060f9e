import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  childKeys,
  describeValue,
  parsePath,
  pathVariables,
  resolvePath,
  valuesAt,
} from '../../console/src/editor/data-paths.ts';
import { completionAt } from '../../console/src/editor/twig-candidates.ts';
import { scanTwig } from '../../console/src/editor/twig-scan.ts';
import { lang } from '../../console/src/i18n.ts';

const DATA = {
  user_name: 'Jane',
  project: { path_with_namespace: 'group/app', web_url: 'https://gitlab.example/group/app' },
  commits: [
    { id: 'a1', message: 'fix', author: { name: 'Jane', email: 'j@example.com' } },
    { id: 'b2', message: 'feat', url: 'https://x', author: { name: 'Joe' } },
  ],
  labels: { bug: { color: 'red' }, 'needs review': { color: 'blue' } },
  'content-type': 'json',
};

/** The completion at the `|` marker of `marked` (the marker itself removed). */
function at(marked: string, data: unknown = DATA, explicit = false) {
  const pos = marked.indexOf('‸');
  const text = marked.replace('‸', '');
  const r = completionAt(text, pos, data, explicit);
  return r && { from: r.from, pos, labels: r.options.map((o) => o.label), options: r.options, text };
}

beforeEach(() => {
  lang.value = 'en-US';
});
afterEach(() => {
  lang.value = 'en-US';
});

describe('data paths', () => {
  it('parses dotted, indexed and quoted paths', () => {
    expect(parsePath('data.commits[0].author')).toEqual({ root: 'data', segments: ['commits', 0, 'author'] });
    expect(parsePath('data.commits.1.id')).toEqual({ root: 'data', segments: ['commits', 1, 'id'] });
    expect(parsePath(`data['content-type']`)).toEqual({ root: 'data', segments: ['content-type'] });
    expect(parsePath('data')).toEqual({ root: 'data', segments: [] });
    expect(parsePath('data.')).toBeNull();
    expect(parsePath('(data|last)')).toBeNull();
  });

  it('finds values, spreading * over every element, and their keys once each', () => {
    expect(valuesAt(DATA, ['commits', 1, 'id'])).toEqual(['b2']);
    expect(valuesAt(DATA, ['commits', '*', 'author', 'name'])).toEqual(['Jane', 'Joe']);
    expect(valuesAt(DATA, ['nope', 'x'])).toEqual([]);
    expect(valuesAt(DATA, ['labels', '*', 'color'])).toEqual(['red', 'blue']);
    // Optional keys of later elements are found too.
    expect(childKeys(valuesAt(DATA, ['commits', '*'])).map((k) => k.key)).toEqual([
      'id',
      'message',
      'author',
      'url',
    ]);
    expect(childKeys([['x', 'y']])).toEqual([
      { key: '0', value: 'x', index: true },
      { key: '1', value: 'y', index: true },
    ]);
    expect(describeValue([1, 2, 3])).toBe('array[3]');
    expect(describeValue(null)).toBe('null');
    expect(describeValue({})).toBe('object');
  });

  it('takes loop and set variables as the paths they stand for', () => {
    const text =
      '{% for commit in data.commits|slice(0, 3) %}{% for k, v in data.labels %}{% set p = data.project %}{% set n = 3 %}';
    const vars = pathVariables(text, scanTwig(text).regions, text.length);
    expect(Object.fromEntries(vars)).toEqual({
      commit: { root: 'data', segments: ['commits', '*'] },
      v: { root: 'data', segments: ['labels', '*'] },
      p: { root: 'data', segments: ['project'] },
    });
    expect(resolvePath({ root: 'commit', segments: ['author'] }, DATA, vars)).toEqual([
      DATA.commits[0]!.author,
      DATA.commits[1]!.author,
    ]);
    // A variable defined after the position does not count.
    expect(pathVariables(text, scanTwig(text).regions, 5).size).toBe(0);
  });

  it('stops on a variable that names itself', () => {
    const vars = new Map([['x', { root: 'x', segments: ['y'] }]]);
    expect(resolvePath({ root: 'x', segments: [] }, DATA, vars)).toEqual([]);
  });
});

describe('completionAt', () => {
  it('completes data. with the keys of the test data, as typed so far', () => {
    const r = at('{{ data.‸ }}')!;
    expect(r.labels).toEqual(['user_name', 'project', 'commits', 'labels', 'content-type']);
    expect(r.from).toBe(r.pos);
    const typed = at('{{ data.proj‸ }}')!;
    expect(typed.from).toBe(typed.pos - 4);
    expect(at('{{ data.project.‸ }}')!.labels).toEqual(['path_with_namespace', 'web_url']);
    expect(at('{{ data.commits.0.author.‸ }}')!.labels).toEqual(['name', 'email']);
    expect(at('{{ data.commits[1].‸ }}')!.labels).toEqual(['id', 'message', 'url', 'author']);
    const project = at('{{ data.‸ }}')!.options.find((o) => o.label === 'project')!;
    expect(project.detail).toBe('object');
    expect(project.info).toContain('group/app');
    expect(at('{{ data.commits.‸ }}')!.options.map((o) => [o.label, o.boost])).toEqual([
      ['0', -1],
      ['1', -1],
    ]);
  });

  it("offers a key that is not a name as ['key'], replacing the dot", () => {
    const r = at('{{ data.‸ }}')!;
    const key = r.options.find((o) => o.label === 'content-type')!;
    expect(key.apply).toBe("['content-type']");
    expect(key.replaceFrom).toBe(r.pos - 1);
    const quoted = at(`{{ data.labels.‸ }}`, { labels: { "it's": 1 } })!.options[0]!;
    expect(quoted.apply).toBe(`['it\\'s']`);
  });

  it('completes loop variables from the array they loop over, and loop itself', () => {
    const text = '{% for commit in data.commits %}{{ commit.‸ }}{% endfor %}';
    expect(at(text)!.labels).toEqual(['id', 'message', 'author', 'url']);
    expect(at('{% for c in data.commits %}{{ c.author.‸ }}')!.labels).toEqual(['name', 'email']);
    expect(at('{% for c in data.commits %}{{ loop.‸ }}')!.labels).toContain('index');
    expect(at('{% for c in data.commits %}{{ c‸ }}')!.labels).toContain('c');
    expect(at('{% for c in data.commits %}{{ l‸ }}')!.labels).toContain('loop');
  });

  it('offers nothing for an unknown variable or a path the data does not have', () => {
    expect(at('{{ other.‸ }}')).toBeNull();
    expect(at('{{ data.missing.‸ }}')!.labels).toEqual([]);
    expect(at('{{ data.‸ }}', null)!.labels).toEqual([]);
  });

  it('completes filters after |, the platform filters first', () => {
    const r = at('{{ data.user_name|‸ }}')!;
    expect(r.labels).toEqual(
      expect.arrayContaining(['json_escape', 'yaml_escape', 'kmd_escape', 'upper', 'date']),
    );
    const jsonEscape = r.options.find((o) => o.label === 'json_escape')!;
    expect(jsonEscape.boost).toBeGreaterThan(0);
    expect(jsonEscape.info).toMatch(/JSON/);
    expect(r.options.find((o) => o.label === 'slice')!.detail).toBe(
      'slice(start, length, preserve_keys) · Twig filter',
    );
    const typed = at('{{ x | json_e‸ }}')!;
    expect(typed.from).toBe(typed.pos - 6);
    expect(at('{% for c in data.commits|‸ %}')!.labels).toContain('slice');
  });

  it('completes PLATFORM and KOOK methods, with parentheses', () => {
    const r = at('{{ PLATFORM.‸ }}')!;
    expect(r.labels).toEqual(['getGuild', 'getChannel', 'getSender', 'getTargetUser', 'getQuote', 'image']);
    expect(r.options.find((o) => o.label === 'getChannel')!.apply).toBe('getChannel()');
    expect(r.options.find((o) => o.label === 'image')!.apply).toBe('image(');
    expect(at('{{ KOOK.get‸ }}')!.labels).toContain('getSender');
  });

  it('completes tests after is, tags at the start of a block, names elsewhere', () => {
    expect(at('{% if data.x is ‸ %}')!.labels).toEqual(
      expect.arrayContaining(['empty', 'divisible by', 'null']),
    );
    expect(at('{% if data.x is not e‸ %}')!.labels).toContain('empty');
    expect(at('{% e‸ %}')!.labels).toEqual(expect.arrayContaining(['endfor', 'endif', 'else']));
    expect(at('{%- f‸')!.labels).toContain('for');
    const names = at('{{ d‸ }}')!.labels;
    expect(names).toEqual(expect.arrayContaining(['data', 'PLATFORM', 'KOOK', 'max', 'range', 'true']));
    expect(at('{% if d‸ %}')!.labels).toContain('data');
  });

  it('stays quiet outside Twig, in comments and strings, and before anything is typed', () => {
    expect(at('{"a": "data.‸"}')).toBeNull();
    expect(at('{# data.‸ #}')).toBeNull();
    expect(at("{{ 'data.‸' }}")).toBeNull();
    expect(at("{{ 'data.‸")).toBeNull();
    expect(at('{{ ‸ }}')).toBeNull();
    expect(at('{{ ‸ }}', DATA, true)!.labels).toContain('data');
    expect(at('{{ 3‸ }}')).toBeNull();
  });

  it('describes in the chosen language', () => {
    lang.value = 'zh-CN';
    expect(at('{{ x|‸ }}')!.options.find((o) => o.label === 'json_escape')!.info).toMatch(/转义/);
    expect(at('{{ KOOK.‸ }}')!.options.find((o) => o.label === 'getQuote')!.info).toBe('被引用的消息');
  });
});
