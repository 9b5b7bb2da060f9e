import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../../src/render/cards/parse-yaml.js';
import { indentQuotedContinuations } from '../../../src/render/cards/yaml-quoted-lines.js';

describe('indentQuotedContinuations', () => {
  it("indents a quoted scalar's continuation lines to its opening quote", () => {
    expect(indentQuotedContinuations('- a:\n    b: \'x\n\ny\'\n    c: "p\nq"\n')).toBe(
      '- a:\n    b: \'x\n\n       y\'\n    c: "p\n       q"\n',
    );
  });

  it('leaves quotes inside plain scalars, comments and block scalars alone', () => {
    const text = "- a: it's\n  b: |\n    'open\n  c: 1 # don't\n  d: x\n";
    expect(indentQuotedContinuations(text)).toBe(text);
  });
});

describe('parseYaml with under-indented quoted continuation lines', () => {
  it('takes them, as PHP YAML readers do, without changing the value', () => {
    expect(parseYaml('- a:\n    b: \'x\n\ny\'\n    c: "p\nq"\n')).toEqual([{ a: { b: 'x\ny', c: 'p q' } }]);
    expect(parseYaml("- k: [ 'x\n\n---', 2 ]\n")).toEqual([{ k: ['x\n---', 2] }]);
  });

  it("keeps the strict parse's error when indenting does not help", () => {
    expect(() => parseYaml("- a:\n    b: 'x\n\ny\n")).toThrow(/Missing closing 'quote/);
  });
});
