// A template can read its input and the platform objects, nothing else; every bound ends the
// render with a TemplateLimitError quickly and leaves the process and later renders unaffected.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HeraldError } from '../../../src/errors/index.js';
import { TemplateLimitError } from '../../../src/render/errors/template-limit-error.js';
import { TemplateRenderError } from '../../../src/render/errors/template-render-error.js';
import { prototypeSnapshot, render } from './helpers.js';

let before = '';
beforeAll(() => {
  before = prototypeSnapshot();
});

/** After every attack: prototypes untouched and an ordinary render still works. */
afterEach(() => {
  expect(prototypeSnapshot()).toBe(before);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(
    render('{% for c in data.c %}{{ c.id|upper }}{% if not loop.last %},{% endif %}{% endfor %}', {
      c: [{ id: 'a' }, { id: 'b' }],
    }),
  ).toBe('A,B');
});

const platform = {
  sender: {
    id: 'u1',
    username: 'bob',
    identify_num: '0001',
    online: true,
    bot: false,
    status: 0,
    avatar: '',
  },
};

describe('no path to host objects', () => {
  it.each([
    '{{ data.__proto__ }}',
    '{{ data.constructor }}',
    '{{ data.constructor.constructor("return process") }}',
    '{{ data["constructor"]["constructor"] }}',
    '{{ data.toString() }}{{ data.hasOwnProperty("x") }}',
    '{{ attribute(data, "constructor") }}{{ attribute(data, "__proto__") }}{{ attribute(data, "valueOf", []) }}',
    '{{ attribute(PLATFORM, "constructor") }}{{ attribute(PLATFORM, "methods") }}{{ attribute(PLATFORM, "findMethod", ["getsender"]) }}',
    '{{ PLATFORM.constructor }}{{ PLATFORM.__proto__ }}{{ KOOK.methods }}{{ PLATFORM.findMethod("x") }}{{ PLATFORM.prototype }}',
    '{{ "abc".constructor }}{{ "abc".toUpperCase() }}{{ "abc".length }}{{ [1].push(2) }}{{ (1).toFixed(2) }}',
    '{% for x in [1] %}{{ loop.constructor }}{{ loop.parent.constructor }}{{ loop.__proto__ }}{% endfor %}',
    '{{ [1, 2]|map(x => x.constructor)|join }}{{ [2, 1]|sort((a, b) => a.constructor)|join }}',
    '{{ _context.constructor }}{{ _charset.constructor }}',
    '{{ data.sender.__proto__.polluted }}',
  ])('%s prints nothing', (template) => {
    // map gives [null, null]; a comparator answering null keeps the order
    expect(render(template, { x: 1 }, platform)).toBe(template.includes('join') ? '21' : '');
  });

  it('hash literals with __proto__ keys are plain data', () => {
    expect(
      render(
        '{% set x = {"__proto__": {"polluted": 1}, constructor: 2} %}{{ x|json_encode }}|{{ x.__proto__.polluted }}',
      ),
    ).toBe('{"__proto__":{"polluted":1},"constructor":2}|1');
    expect(render('{{ {}|merge({"__proto__": {"polluted": 1}})|json_encode }}')).toBe(
      '{"__proto__":{"polluted":1}}',
    );
  });

  it('input keys named __proto__ are data, never prototypes', () => {
    const data = JSON.parse('{"__proto__": {"polluted": "yes"}, "a": {"__proto__": 1}}') as unknown;
    expect(
      render('{{ data.__proto__.polluted }}|{{ data.a.__proto__ }}|{{ data|keys|join(",") }}', data),
    ).toBe('yes|1|__proto__,a');
  });

  it('_self only names macros; unknown names are render errors', () => {
    expect(() => render('{{ _self.constructor() }}')).toThrow(TemplateRenderError);
    expect(() => render('{{ _self.__proto__() }}')).toThrow(TemplateRenderError);
    expect(render('{{ _self }}')).toBe('template');
  });

  it('filters take arrow functions only, never names of host functions', () => {
    for (const t of [
      '{{ [1]|map("constructor")|join }}',
      '{{ [1]|filter("eval")|join }}',
      '{{ [1]|sort("system")|join }}',
      '{{ [1]|reduce("x") }}',
    ]) {
      expect(() => render(t), t).toThrow(TemplateRenderError);
    }
  });

  it('calling the result of an expression is not Twig syntax', () => {
    expect(() => render('{{ data.constructor.constructor("return process")() }}')).toThrow(HeraldError);
  });

  it('no globals besides data, PLATFORM and KOOK', () => {
    expect(
      render(
        '{{ process }}{{ globalThis }}{{ require }}{{ setTimeout }}{{ Object }}{{ _context|keys|join(",") }}',
        {},
      ),
    ).toBe('data,PLATFORM,KOOK');
  });

  it('the render never mutates its input', () => {
    const data = { list: [3, 1, 2], h: { b: 1, a: 2 }, s: ' x ' };
    const before = JSON.stringify(data);
    render(
      '{% set data = data|merge({x: 1}) %}{{ data.list|sort|join }}{{ data.h|sort|json_encode }}{{ data.list|reverse|join }}{% set l = data.list %}{{ l|merge([4])|join }}{{ data.s|trim }}',
      data,
    );
    expect(JSON.stringify(data)).toBe(before);
  });

  it('functions that reach files or the host are compile errors', () => {
    for (const t of [
      '{{ include("x") }}',
      '{{ source("x") }}',
      '{{ dump(data) }}',
      '{{ template_from_string("x") }}',
      '{% include "x" %}',
      '{% extends "x" %}',
      '{% embed "x" %}{% endembed %}',
      '{% import "x" as y %}',
    ]) {
      expect(() => render(t), t).toThrow(HeraldError);
    }
  });

  it('constant() reads only constants that say nothing about the host', () => {
    expect(render("{{ constant('JSON_PRETTY_PRINT') }} {{ constant('DateTime::ATOM') }}")).toBe(
      '128 Y-m-d\\TH:i:sP',
    );
    for (const t of [
      '{{ constant("PHP_VERSION") }}',
      '{{ constant("PHP_OS") }}',
      '{{ constant("PHP_BINARY") }}',
      '{{ constant("DIRECTORY_SEPARATOR") }}',
      '{{ constant("Herald\\\\Secret::KEY") }}',
      '{{ constant("ATOM", data) }}',
      '{% if x is constant("A") %}{% endif %}',
    ]) {
      expect(() => render(t, { a: 1 }), t).toThrow(HeraldError);
    }
  });
});

/**
 * CPU milliseconds `run` takes. Bounds are judged on CPU time, not wall time: on a loaded machine
 * a render can wait for a core far longer than it runs (one test passed 500 ms of wall time in 3
 * of 9 runs at load 6-9).
 */
function cpuMs(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** Runs a template that must hit `limit`, and checks it stops fast. */
function expectLimit(template: string, limit: string | RegExp, data: unknown = {}): void {
  let caught: unknown;
  const ms = cpuMs(() => {
    try {
      render(template, data);
    } catch (err) {
      caught = err;
    }
  });
  expect(caught, template).toBeInstanceOf(TemplateLimitError);
  // on a loaded machine the clock backstop may legitimately fire before the named bound
  const got = (caught as TemplateLimitError).limit;
  if (got !== 'maxRenderMs') expect(got).toMatch(limit);
  // Typically 1-75 ms (the clock backstop is 50 ms); the bound is generous because test machines
  // are shared and a loaded one must not make this flaky. A hang would take seconds.
  expect(ms, `${template} took ${ms.toFixed(1)} ms`).toBeLessThan(500);
}

describe('bounded work', () => {
  it.each<[string, string, string | RegExp, unknown?]>([
    [
      'nested loops',
      '{% for i in 1..10000 %}{% for j in 1..10000 %}{% endfor %}{% endfor %}',
      /maxSteps|maxRenderMs/,
    ],
    ['huge range', '{% for i in range(1, 1000000000) %}{% endfor %}', 'maxArrayLength'],
    ['huge range operator', '{{ (1..2000000000)|length }}', 'maxArrayLength'],
    [
      'string doubling with ~',
      '{% set s = "x" %}{% for i in 1..40 %}{% set s = s ~ s %}{% endfor %}',
      'maxStringLength',
    ],
    ['format width', '{{ "%099999999d"|format(1) }}', 'maxStringLength'],
    ['format precision', '{{ "%.99999999f"|format(1) }}', 'maxStringLength'],
    ['number_format decimals', '{{ 1|number_format(1000000000) }}', 'maxStringLength'],
    ['batch fill', '{{ [1, 2]|batch(1000000000, "x")|length }}', 'maxArrayLength'],
    [
      'macro recursion',
      '{% macro r(n) %}{{ _self.r(n + 1) }}{% endmacro %}{{ _self.r(1) }}',
      'maxMacroDepth',
    ],
    [
      'output size',
      '{% for i in 1..1000 %}{% for j in 1..1000 %}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx{% endfor %}{% endfor %}',
      /maxOutputLength|maxSteps/,
    ],
    [
      'join of huge arrays',
      '{% for i in 1..1000 %}{% set x = range(1, 99999)|join(",") %}{% endfor %}',
      /maxSteps|maxRenderMs/,
    ],
    [
      'merge doubling',
      '{% set a = [1] %}{% for i in 1..40 %}{% set a = a|merge(a) %}{% endfor %}',
      /maxArrayLength|maxSteps/,
    ],
    [
      'split amplification',
      '{% set s = "x"|format %}{% for i in 1..21 %}{% set s = s ~ s %}{% endfor %}{{ s|split("")|length }}',
      /maxArrayLength|maxStringLength/,
    ],
    [
      'in over a big array in a loop',
      '{% set a = range(1, 90000) %}{% for i in 1..5000 %}{% if -1 in a %}{% endif %}{% endfor %}',
      /maxSteps|maxRenderMs/,
    ],
    [
      'sort comparator calls',
      '{% for i in 1..100 %}{{ range(1, 90000)|sort((a, b) => b - a)|length }}{% endfor %}',
      /maxSteps|maxRenderMs/,
    ],
    [
      'replace amplification',
      '{% set s = "ab" %}{% for i in 1..30 %}{% set s = s|replace({"a": "aa", "b": "bb"}) %}{% endfor %}',
      /maxStringLength|maxSteps|maxRenderMs/,
    ],
    ['map nesting', '{{ range(1, 50000)|map(x => range(1, 50000)|length)|length }}', /maxSteps|maxRenderMs/],
    [
      // each call's scope has a slot per name its body uses, charged one step per 64 of them
      'macro calls naming hundreds of variables',
      `{% macro m() %}{% if false %}${Array.from({ length: 640 }, (_, i) => `{% set v${i} = 1 %}`).join('')}{% endif %}{% endmacro %}{% for j in 1..2 %}{% for i in 1..60000 %}{{ _self.m() }}{% endfor %}{% endfor %}`,
      /maxSteps|maxRenderMs/,
    ],
    [
      'arrow calls copying hundreds of variables',
      `{% if false %}${Array.from({ length: 640 }, (_, i) => `{% set v${i} = 1 %}`).join('')}{% endif %}{% for j in 1..2 %}{{ range(1, 60000)|map(x => x)|length }}{% endfor %}`,
      /maxSteps|maxRenderMs/,
    ],
  ])('%s', (_name, template, limit) => {
    expectLimit(template, limit);
  });

  it('deep nesting is refused at compile time', () => {
    expectLimit(`{{ ${'('.repeat(500)}1${')'.repeat(500)} }}`, 'maxNestingDepth');
    expectLimit(`{{ 1${'|abs'.repeat(5000)} }}`, 'maxNestingDepth');
    expectLimit(`{{ 1${' + 1'.repeat(5000)} }}`, 'maxNestingDepth');
    expectLimit(`${'{% if true %}'.repeat(500)}${'{% endif %}'.repeat(500)}`, 'maxNestingDepth');
  });

  it('huge templates are refused', () => {
    expectLimit(`{{ "${'x'.repeat(300_000)}" }}`, 'maxTemplateLength');
  });

  it('regular expressions run in linear time', () => {
    let matched = '';
    const ms = cpuMs(() => {
      matched = render(`{{ "${'a'.repeat(5000)}!" matches "/^(a+)+$/" }}`);
    });
    expect(matched).toBe('0');
    expect(ms).toBeLessThan(250);
    expect(() => render('{{ "aa" matches "/(a)\\\\1/" }}')).toThrow(TemplateRenderError);
  });

  it('long runs of whitespace do not make trimming quadratic', () => {
    const ms = cpuMs(() => {
      render(`${' '.repeat(150_000)}x{{- 1 }}{{ data.s|trim }}`, {
        s: `${' '.repeat(500_000)}x${' '.repeat(500_000)}`,
      });
    });
    expect(ms).toBeLessThan(250);
  });

  it('limits are configurable per template', () => {
    expect(() => render('{% for i in 1..100 %}{% endfor %}', {}, {}, {}, { maxSteps: 50 })).toThrow(
      TemplateLimitError,
    );
    expect(() => render('{{ "abcdef" }}', {}, {}, {}, { maxOutputLength: 3 })).toThrow(TemplateLimitError);
  });

  it('limit errors carry the position of the failing construct', () => {
    try {
      render('line one\n{{ "%0999999999d"|format(1) }}');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(TemplateLimitError);
      expect((err as TemplateLimitError).data).toMatchObject({ limit: 'maxStringLength', line: 2 });
    }
  });
});

describe('megabyte strings in loops', () => {
  it.each([
    [
      'filters',
      '{% set big = "%1000000s"|format("x") %}{% for i in 1..100000 %}{{ big|upper|length > 0 ? "" }}{% endfor %}',
    ],
    [
      'in',
      '{% set big = "%1000000s"|format("x") %}{% for i in 1..100000 %}{% if "zz" in big %}{% endif %}{% endfor %}',
    ],
    [
      '==',
      '{% set a = "%1000000s"|format("x") %}{% set b = "%1000000s"|format("y") %}{% for i in 1..100000 %}{% if a == b ~ "" %}{% endif %}{% endfor %}',
    ],
    [
      'json_encode',
      '{% set a = "%1000000s"|format("x") %}{% set l = [] %}{% for i in 1..1000 %}{% set l = l|merge([a ~ i]) %}{% endfor %}{{ l|json_encode|length }}',
    ],
    [
      'matches',
      '{% set a = "%1000000s"|format("x") %}{% for i in 1..10000 %}{% if a matches "/y$/" %}{% endif %}{% endfor %}',
    ],
  ])('%s', (_name, template) => {
    expectLimit(template, /maxSteps|maxRenderMs|maxStringLength/);
  });
});

/** A string of 2^n copies of `unit`, built by the template itself (short source). */
const doubled = (unit: string, n: number) =>
  `{% set f = "${unit}" %}{% for i in 1..${n} %}{% set f = f ~ f %}{% endfor %}`;

describe('work chosen by arguments, not input', () => {
  it.each([
    // Each T took an Intl call: 2^18 of them ran for 26 s before the bound was looked at.
    ['date format of zone abbreviations', `${doubled('T', 19)}{{ 0|date(f, "America/New_York") }}`],
    ['date format of composite dates', `${doubled('c', 20)}{{ 0|date(f) }}`],
    // 2^18 zone names: a 3.4-million-character result.
    ['date format past the string bound', `${doubled('e', 18)}{{ 0|date(f, "America/New_York") }}`],
    ['date method format', `${doubled('T', 19)}{{ date(0, "America/New_York").format(f) }}`],
    // 524,288 characters in, 1,572,864 out: past the string bound, and nothing looked.
    ['escapes that grow their input', `${doubled('<', 19)}{% set g = f|url_encode %}{{ g|length }}`],
  ])('%s', (_name, template) => {
    expectLimit(template, /maxSteps|maxRenderMs|maxStringLength/);
  });

  it('a date_modify of as many terms as the string bound allows ends quickly', () => {
    // The render clock is lifted so that it cannot end the render first: what is measured is the
    // modifier's own cost (every term charged, none slow), which must stay far below the clock.
    let out = '';
    const ms = cpuMs(() => {
      out = render(
        `${doubled('+1 day ', 17)}{{ 0|date_modify(f)|date("Y") }}`,
        {},
        {},
        {},
        { maxRenderMs: 5_000 },
      );
    });
    expect(out).toBe('2328');
    expect(ms).toBeLessThan(500);
  });

  it('ordinary formats and modifiers still render', () => {
    expect(
      render('{{ 0|date("D, d M Y T", "America/New_York") }}|{{ 0|date_modify("+1 day noon")|date("c") }}'),
    ).toBe('Wed, 31 Dec 1969 EST|1970-01-02T12:00:00+00:00');
  });
});
