import { describe, expect, it } from 'vitest';
import { TemplateRenderError } from '../../../src/render/errors/template-render-error.js';
import { compileTemplate, MAX_WARNINGS } from '../../../src/render/twig/index.js';

const run = (template: string, data: unknown = {}) => compileTemplate(template).renderWithWarnings(data, {});

describe('PHP warnings: rendered past, collected with their position', () => {
  it('an array prints "Array" and the warning names the print', () => {
    const r = run('a\n  {{ data.labels }}!', { labels: ['x'] });
    expect(r.output).toBe('a\n  Array!');
    expect(r.warnings).toEqual([{ message: 'Array to string conversion', line: 2, column: 3 }]); // the {{ of the print
    expect(r.warningCount).toBe(1);
  });

  it('a warning points at the innermost expression that raised it', () => {
    const r = run('{{ "x" ~ (data.n + 1) }}', { n: '5 items' });
    expect(r.output).toBe('x6');
    expect(r.warnings).toEqual([{ message: 'A non-numeric value encountered', line: 1, column: 18 }]);
  });

  it('the unary minus of a formatted number warns and keeps the leading number', () => {
    const r = run('{{ -data.n|number_format(1) }}', { n: 1234.5 });
    expect(r.output).toBe('-1');
    expect(r.warnings.map((w) => w.message)).toEqual(['A non-numeric value encountered']);
  });

  it('each warning is kept in order, one per occurrence', () => {
    const r = run('{% for x in data %}{{ x ~ "" }}{% endfor %}\n{{ data.1 + 1 }}', [[1], '2a', [3]]);
    expect(r.output).toBe('Array2aArray3'); // Twig drops the line break after a tag
    expect(r.warnings.map((w) => [w.message, w.line])).toEqual([
      ['Array to string conversion', 1],
      ['Array to string conversion', 1],
      ['A non-numeric value encountered', 2],
    ]);
  });

  it(`keeps the first ${MAX_WARNINGS} warnings and counts the rest`, () => {
    const r = run(
      '{% for x in data %}{{ x }}{% endfor %}',
      Array.from({ length: 50 }, () => [1]),
    );
    expect(r.output).toBe('Array'.repeat(50));
    expect(r.warnings).toHaveLength(MAX_WARNINGS);
    expect(r.warningCount).toBe(50);
  });

  it('a template without warnings has none, and render() answers the output alone', () => {
    const t = compileTemplate('{{ data.n + 1 }}');
    expect(t.renderWithWarnings({ n: 1 }, {})).toEqual({ output: '2', warnings: [], warningCount: 0 });
    expect(t.render({ n: '1x' }, {})).toBe('2');
  });

  it('warnings of one render do not leak into the next', () => {
    const t = compileTemplate('{{ data }}');
    expect(t.renderWithWarnings([1], {}).warnings).toHaveLength(1);
    expect(t.renderWithWarnings('s', {}).warnings).toHaveLength(0);
  });

  it.each([
    ['{{ "abc" + 1 }}', 'Unsupported operand types: string + int'],
    ['{{ 1 / 0 }}', 'Division by zero'],
    ['{{ 1 % 0 }}', 'Modulo by zero'],
    ['{{ [1]|upper }}', 'must be of type string, array given'],
    ['{{ -[1] }}', 'Unsupported operand types: array * int'],
  ])('what PHP treats as fatal stays fatal: %s', (template, message) => {
    expect(() => run(template)).toThrow(TemplateRenderError);
    expect(() => run(template)).toThrow(message);
  });
});
