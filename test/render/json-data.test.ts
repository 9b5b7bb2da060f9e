import { describe, expect, it } from 'vitest';
import { parseJsonData } from '../../src/render/json-data.js';
import { compileTemplate } from '../../src/render/twig/index.js';

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

  it('rejects invalid JSON and absurd nesting', () => {
    for (const bad of ['{', '{"a" 1}', '[1,]', '"\u0001"', '01', '{"a":1}x', 'nul']) {
      expect(() => parseJsonData(bad), bad).toThrow(SyntaxError);
    }
    expect(() => parseJsonData(`${'['.repeat(600)}${']'.repeat(600)}`)).toThrow(SyntaxError);
  });
});
