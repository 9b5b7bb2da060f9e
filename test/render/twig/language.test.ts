// Expected strings below were produced by PHP Twig 3.5 (autoescape off, strict_variables off).
import { describe, expect, it } from 'vitest';
import { render } from './helpers.js';

const data = {
  s: 'Hello World',
  n: 5,
  arr: [3, 1, 2],
  h: { a: 1, b: 'x', c: null },
  u: 'héllo wörld 😀 中文',
  list: [
    { name: 'b', v: 2 },
    { name: 'a', v: 1 },
  ],
};

const cases: [string, string][] = [
  [
    '{{ -2 ** 2 }}|{{ (-2) ** 2 }}|{{ 2 ** 3 ** 2 }}|{{ 7 // 2 }}|{{ -7 // 2 }}|{{ -7 % 3 }}',
    '-4|-4|512|3|-4|-1',
  ],
  [
    '{{ 1.5 }}|{{ 3.0 }}|{{ 1/3 }}|{{ 0.1+0.2 }}|{{ 1e+20 }}|{{ 0.00001 }}|{{ -0.0 }}',
    '1.5|3|0.33333333333333|0.3|1.0E+20|1.0E-5|-0',
  ],
  [
    '{{ 2 ** 62 }}|{{ 2 ** 64 }}|{{ 0.1 + 0.2 - 0.3 }}|{{ 3 * 1.1 }}',
    '4611686018427387904|1.844674407371E+19|5.5511151231258E-17|3.3',
  ],
  ['{{ 1 == "1.0" }}|{{ "abc" == 0 }}|{{ null == false }}|{{ "10" == "1e1" }}|{{ "abc" < "b" }}', '1||1|1|1'],
  ['{{ 5 in [1,5] }}|{{ "5" in [5] }}|{{ "b" in "abc" }}|{{ 1 in {a:1} }}|{{ "a" in {a:1} }}', '1|1|1|1|'],
  [
    '{{ "abc" starts with "a" }}{{ "abc" ends with "bc" }}{{ "abc" matches "/B/i" }}{{ "x" matches "/y/" }}',
    '1110',
  ],
  ['{{ (1..5)|join(",") }}|{{ ("a".."e")|join }}|{{ range(0, 10, 3)|join }}', '1,2,3,4,5|abcde|0369'],
  [
    '{{ 3 b-and 5 }}{{ 3 b-or 5 }}{{ 3 b-xor 5 }}|{{ 1 ?: 2 }}|{{ null ?? 3 }}|{{ data.x.y ?? "d" }}',
    '176|1|3|d',
  ],
  [
    '{{ data.s|upper }}|{{ data.u|title }}|{{ data.u|length }}|{{ data.u|reverse }}',
    'HELLO WORLD|Héllo Wörld 😀 中文|16|文中 😀 dlröw olléh',
  ],
  [
    '{{ data.arr|sort|join(",") }}|{{ data.arr|sort((a, b) => b <=> a)|join }}|{{ data.list|sort((a, b) => a.v > b.v)|column("name")|join }}',
    '1,2,3|321|ab',
  ],
  [
    '{{ data.arr|map(x => x * 2)|join(",") }}|{{ data.arr|filter(x => x > 1)|json_encode }}|{{ data.arr|reduce((c, x) => c + x, 10) }}',
    '6,2,4|{"0":3,"2":2}|16',
  ],
  [
    '{{ data.h|json_encode }}|{{ {}|json_encode }}|{{ data.u|json_encode }}',
    '{"a":1,"b":"x","c":null}|[]|"h\\u00e9llo w\\u00f6rld \\ud83d\\ude00 \\u4e2d\\u6587"',
  ],
  [
    '{{ [1,2,3,4,5]|batch(2)|json_encode }}|{{ [1,2,3]|batch(2, "x")|json_encode }}',
    '[[1,2],{"2":3,"3":4},{"4":5}]|[[1,2],{"2":3,"3":"x"}]',
  ],
  [
    '{{ 1234567.891|number_format(2) }}|{{ 1.005|number_format(2) }}|{{ 2.5|round }}|{{ -2.5|round }}|{{ 1.955|round(2) }}',
    '1,234,567.89|1.01|3|-3|1.96',
  ],
  ['{{ "%05d|%-5s|%5.1f|%x|%+d|%.0f"|format(42, "ab", 3.14159, 255, 7, 2.5) }}', '00042|ab   |  3.1|ff|+7|2'],
  [
    '{{ "a,b,,c"|split(",")|json_encode }}|{{ "abcde"|split("", 2)|json_encode }}|{{ "a,b,c"|split(",", -1)|json_encode }}',
    '["a","b","","c"]|["ab","cd","e"]|["a","b"]',
  ],
  [
    '{{ "<p>Hi <b>there</b></p>"|striptags }}|{{ "a\nb"|nl2br }}|{{ "xxhixx"|trim("x") }}',
    'Hi there|a<br />\nb|hi',
  ],
  [
    '{{ "<a href=\\"x\\">&\'</a>"|e }}|{{ "a b&c/d?é"|e("url") }}|{{ "a\\"b</"|e("js") }}',
    '&lt;a href=&quot;x&quot;&gt;&amp;&#039;&lt;/a&gt;|a%20b%26c%2Fd%3F%C3%A9|a\\u0022b\\u003C\\/',
  ],
  [
    '{{ ""|default("d") }}|{{ "0"|default("d") }}|{{ data.missing|default("d") }}|{{ 0|default("d") }}',
    'd|0|d|0',
  ],
  [
    '{{ data.missing is defined }}|{{ data.h.c is defined }}|{{ data.h.c is null }}|{{ 9 is divisible by 3 }}|{{ 1 is same as(1) }}',
    '|1|1|1|1',
  ],
  [
    '{{ 1700000000|date("Y-m-d H:i:s") }}|{{ "2024-01-15T10:30:00+08:00"|date("c") }}|{{ 1700000000|date("D, d M Y H:i T", "Asia/Shanghai") }}',
    '2023-11-14 22:13:20|2024-01-15T02:30:00+00:00|Wed, 15 Nov 2023 06:13 CST',
  ],
  [
    '{% set t = 0 %}{% for x in data.arr %}{% set t = t + x %}{% set inner = 1 %}{% endfor %}{{ t }}|{{ inner is defined ? "def" : "undef" }}',
    '6|undef',
  ],
  [
    '{% for i in 1..3 %}{{ loop.index0 }}{{ loop.revindex }}{{ loop.first ? "F" }}{{ loop.last ? "L" }}{% endfor %}|{% for x in [] %}x{% else %}empty{% endfor %}',
    '03F1221L|empty',
  ],
  [
    '{% for a in [1,2] %}{% for b in [3,4] %}{{ loop.parent.loop.index }}{{ loop.index }} {% endfor %}{% endfor %}',
    '11 12 21 22 ',
  ],
  [
    '{% macro hello(name, greeting="Hi") %}{{ greeting }}, {{ name }}!{{ varargs|join }}{% endmacro %}{{ _self.hello("Bob") }}|{{ _self.hello("Al", "Yo", "x", "y") }}',
    'Hi, Bob!|Yo, Al!xy',
  ],
  ['{% from _self import f as g %}{% macro f(x) %}<{{ x }}>{% endmacro %}{{ g(3) }}', '<3>'],
  [
    '{% with {a: 1} %}{{ a }}{{ data.n }}{% endwith %}|{% with {a: 1} only %}{{ a }}{{ data.n }}{% endwith %}',
    '15|1',
  ],
  [
    '{% apply upper %}hello {{ data.s }}{% endapply %}|{% set c %}cap{% endset %}{{ c }}',
    'HELLO HELLO WORLD|cap',
  ],
  ["{{ 'a' }}   {{- 'b' -}}   {{ 'c' }} {{~ 'd' ~}}   \n  {{ 'e' }}", 'abcd\n  e'],
  [
    '{% if true %}\nyes\n{% endif %}\n{# c #}\nafter|{% verbatim %}{{ x }}{% endverbatim %}',
    'yes\nafter|{{ x }}',
  ],
  [
    '{{ "#{data.n * 2} items" }}|{{ "a\\tb" }}|{{ \'it\\\'s\' }}|{{ data.u[1:3] }}|{{ data.list[1].name }}',
    "10 items|a\tb|it's|éll|a",
  ],
  [
    '{{ max(1, 3, 2) }}|{{ min([4, 2, 8]) }}|{{ cycle(["a", "b"], 3) }}|{{ attribute(data.h, "b") }}|{{ random(["only"]) }}',
    '3|2|b|x|only',
  ],
];

describe('Twig language (outputs checked against PHP Twig 3.5)', () => {
  it.each(cases)('%s', (template, expected) => {
    expect(render(template, data)).toBe(expected);
  });

  it('renders the same compiled template many times with different data', () => {
    const { compileTemplate } = require_();
    const tpl = compileTemplate('{{ data.x }}');
    expect(tpl.render({ x: 1 }, {})).toBe('1');
    expect(tpl.render({ x: 'two' }, {})).toBe('two');
  });

  it('random() uses the seedable source', () => {
    expect(render('{{ random(10) }}', {}, {}, { random: () => 0.5 })).toBe('5');
    expect(render('{{ random(["a", "b", "c"]) }}', {}, {}, { random: () => 0.99 })).toBe('c');
  });
});

import * as twig from '../../../src/render/twig/index.js';

function require_(): typeof twig {
  return twig;
}

describe('Markup (captured blocks and macro results), as PHP Twig', () => {
  it.each<[string, string]>([
    [
      '{% set x %}<b>{{ data.s }}</b>{% endset %}{{ x|e }}|{{ x|nl2br }}|{{ x|length }}|{{ x == "<b>Hello World</b>" }}|{{ x starts with "<" }}|{{ x is same as("<b>Hello World</b>") }}',
      '&lt;b&gt;Hello World&lt;/b&gt;|<b>Hello World</b>|18|1||',
    ],
    [
      '{% set x %}<b>{{ data.s }}</b>{% endset %}{{ x|json_encode }}|{{ "b" in x }}|{{ x|default("d") }}',
      '"<b>Hello World<\\/b>"|1|<b>Hello World</b>',
    ],
    [
      '{% autoescape "html" %}{% set x %}<b>{% endset %}{{ x }}{{ "<i>" }}{{ data.s ~ "<" }}{% endautoescape %}',
      '<b><i>Hello World&lt;',
    ],
    ['{% set e %}{% endset %}{{ e is same as("") }}', '1'],
  ])('%s', (template, expected) => {
    expect(render(template, data)).toBe(expected);
  });

  it('arithmetic on a macro result is a type error, as in PHP', () => {
    expect(() => render('{% macro n() %}5{% endmacro %}{{ _self.n() * 2 }}')).toThrow(
      'Unsupported operand types: Twig\\Markup * int',
    );
  });
});
