import { describe, expect, it } from 'vitest';
import { TemplateLimitError } from '../../../src/render/errors/template-limit-error.js';
import { render } from './helpers.js';

// The fast paths of the render (cached replace tables, the loop variable, joined output runs)
// must keep every bound a hostile template meets; conformance cases cover their output.

function limitOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof TemplateLimitError) return (err as TemplateLimitError & { limit: string }).limit;
    throw err;
  }
  return undefined;
}

describe('render fast paths keep the bounds', () => {
  it('replace charges one step per position and key length, cached table or not', () => {
    // 100,000 positions x 2 key lengths = 200,000 steps: over a 150,000 budget, under 250,000
    const tpl = "{% for i in 1..2 %}{{ data.s|replace({'ab': 'x', 'c': 'y'})|length }},{% endfor %}";
    const data = { s: 'z'.repeat(100_000) };
    expect(limitOf(() => render(tpl.replace('1..2', '1..1'), data, {}, {}, { maxSteps: 150_000 }))).toBe(
      'maxSteps',
    );
    expect(render(tpl.replace('1..2', '1..1'), data, {}, {}, { maxSteps: 250_000 })).toBe('100000,');
    // the second use of the same constant table is charged again
    expect(limitOf(() => render(tpl, data, {}, {}, { maxSteps: 350_000 }))).toBe('maxSteps');
    expect(render(tpl, data, {}, {}, { maxSteps: 450_000 })).toBe('100000,100000,');
  });

  it('a run of texts and prints still stops at the output bound', () => {
    const tpl = `{% for i in 1..100 %}${'{{ data.s }}-'.repeat(20)}{% endfor %}`;
    expect(
      limitOf(() => render(tpl, { s: 'x'.repeat(10_000) }, {}, {}, { maxOutputLength: 1_000_000 })),
    ).toBe('maxOutputLength');
  });

  it('replace matches longest keys first over the scan of candidate positions', () => {
    expect(render("{{ 'abcab ab a é'|replace({'ab': 'X', 'abc': 'Y', 'é': 'e', 'b': 'B'}) }}")).toBe(
      'YX X a e',
    );
  });
});
