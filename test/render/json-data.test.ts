import { describe, expect, it } from 'vitest';
import { parseJsonData } from '../../src/render/json-data.js';
import { compileTemplate } from '../../src/render/twig/index.js';
import type { PhpArray } from '../../src/render/twig/runtime/php-array.js';

const render = (t: string, json: string): string => compileTemplate(t).render(parseJsonData(json), {});

describe('parseJsonData', () => {
  it('keeps PHP key order for integer-like keys (JSON.parse does not)', () => {
    const json = '{"b":1,"2":"two","1":"one","a":0,"-1":"m","01":"z"}';
    expect(render('{% for k, v in data %}{{ k }}={{ v }};{% endfor %}|{{ data|json_encode }}', json)).toBe(
      'b=1;2=two;1=one;a=0;-1=m;01=z;|{"b":1,"2":"two","1":"one","a":0,"-1":"m","01":"z"}',
    );
    expect(render('{{ data[2] }}{{ data["1"] }}{{ data["01"] }}', json)).toBe('twoonez');
  });

  it('finds integer-like keys at any depth, and answers JSON.parse values when there are none', () => {
    const nested = '{"a":[{"x":1,"2":"two","1":"one"}]}';
    expect(render('{% for k, v in data.a[0] %}{{ k }};{% endfor %}', nested)).toBe('x;2;1;');
    const plain = '{"b":{"c":[1,{"d":"e"}]},"a":"-1"}';
    expect(parseJsonData(plain)).toEqual(JSON.parse(plain));
    expect(Object.getPrototypeOf(parseJsonData(plain))).toBe(Object.prototype);
  });

  it('parses what JSON.parse parses, to the same template values', () => {
    const json =
      '{"s":"a\\"b\\u00e9\\ud83d\\ude00","n":[1,-2.5,1e3,0],"t":true,"f":false,"z":null,"e":{},"l":[],"__proto__":{"x":1}}';
    const t = '{{ data|json_encode }}|{{ data.__proto__.x }}|{{ data.e is empty }}';
    expect(render(t, json)).toBe(compileTemplate(t).render(JSON.parse(json), {}));
  });

  it('keeps integers beyond 2^53 exact within int64 at any depth, and overflows past it to floats', () => {
    const json =
      '{"id":1234567890123456789,"l":[9007199254740993,-9223372036854775808],"o":{"m":9223372036854775807},' +
      '"over":9223372036854775808,"f":1e20,"s":9007199254740991}';
    const data = parseJsonData(json) as PhpArray;
    expect(data.get('id')).toBe(1234567890123456789n);
    expect((data.get('l') as PhpArray).values()).toEqual([9007199254740993n, -9223372036854775808n]);
    expect((data.get('o') as PhpArray).get('m')).toBe(9223372036854775807n);
    expect(data.get('over')).toBe(2 ** 63);
    expect(data.get('f')).toBe(1e20);
    expect(data.get('s')).toBe(9007199254740991);
    expect(parseJsonData('-1234567890123456789')).toBe(-1234567890123456789n);
    expect(render('{{ data.id }}|{{ data.id + 1 }}|{{ data|json_encode }}', json)).toBe(
      '1234567890123456789|1234567890123456790|' +
        '{"id":1234567890123456789,"l":[9007199254740993,-9223372036854775808],"o":{"m":9223372036854775807},' +
        '"over":9.223372036854776e+18,"f":1.0e+20,"s":9007199254740991}',
    );
  });

  it('reads -0 as the int 0 and -0.0 as the float -0, as json_decode does', () => {
    expect(Object.is(parseJsonData('-0'), 0)).toBe(true);
    expect(Object.is(parseJsonData('-0.0'), -0)).toBe(true);
    expect(render('{{ data[0] }}|{{ data[1] }}|{{ data|json_encode }}', '[-0,-0.0]')).toBe('0|-0|[0,-0]');
  });

  it('rejects invalid JSON and absurd nesting', () => {
    for (const bad of ['{', '{"a" 1}', '[1,]', '"\u0001"', '01', '{"a":1}x', 'nul']) {
      expect(() => parseJsonData(bad), bad).toThrow(SyntaxError);
    }
    expect(() => parseJsonData(`${'['.repeat(600)}${']'.repeat(600)}`)).toThrow(SyntaxError);
  });
});
