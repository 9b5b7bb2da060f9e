import { describe, expect, it } from 'vitest';
import { TemplateCompileError } from '../../../src/render/errors/template-compile-error.js';
import { TemplateFeatureUnavailableError } from '../../../src/render/errors/template-feature-unavailable-error.js';
import { TemplateRenderError } from '../../../src/render/errors/template-render-error.js';
import { render } from './helpers.js';

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}

describe('typed errors with positions', () => {
  it('compile errors carry line, column and a one-line excerpt', () => {
    const err = caught(() => render('first line\n  {{ data.x | }}\nthird')) as TemplateCompileError;
    expect(err).toBeInstanceOf(TemplateCompileError);
    expect(err.code).toBe(40010);
    expect(err.name).toBe('TemplateCompileError');
    expect(err.data).toEqual({ line: 2, column: 14, excerpt: '  {{ data.x | }}' });
  });

  it.each([
    ['{{ data.x|nope }}', 'Unknown "nope" filter.'],
    ['{{ nope() }}', 'Unknown "nope" function.'],
    ['{% if x is nope %}{% endif %}', 'Unknown "nope" test.'],
    ['{% nope %}', 'Unknown "nope" tag.'],
    ['{% if true %}', 'Unexpected end of template.'],
    ['{{ "abc }}', 'Unclosed'],
    ['{{ 1.5e3 }}', 'Unexpected token'],
    ['{% set a, b = 1 %}', 'same number of variables'],
    // PHP's fatal error for a closure that names a parameter twice (its harness cannot record it)
    ['{{ [1]|map((v, v) => v)|join }}', 'Redefinition of parameter $v'],
    ['{{ [1] has some (v, v) => v }}', 'Redefinition of parameter $v'],
  ])('%s', (template, message) => {
    const err = caught(() => render(template));
    expect(err).toBeInstanceOf(TemplateCompileError);
    expect((err as TemplateCompileError).detail).toContain(message);
  });

  it('features that need files or the host are named as unavailable', () => {
    const err = caught(() => render('ok\n{% include "x.twig" %}')) as TemplateFeatureUnavailableError;
    expect(err).toBeInstanceOf(TemplateFeatureUnavailableError);
    expect(err.code).toBe(40016);
    expect(err.data).toMatchObject({ line: 2, column: 4 });
    expect(err.message).toContain('include');
  });

  it('render errors carry the position of the failing expression', () => {
    const err = caught(() => render('a\nb {{ data.n / 0 }}', { n: 1 })) as TemplateRenderError;
    expect(err).toBeInstanceOf(TemplateRenderError);
    expect(err.code).toBe(40011);
    expect(err.detail).toBe('Division by zero');
    expect(err.data).toMatchObject({ line: 2, excerpt: 'b {{ data.n / 0 }}' });
  });

  it.each([
    ['{{ [1]|upper }}', 'must be of type string, array given'],
    ['{{ "abc" * 2 }}', 'Unsupported operand types: string * int'],
    ['{{ 1 % 0 }}', 'Modulo by zero'],
    ['{{ "x"|merge([1]) }}', 'merge filter only works with arrays'],
  ])('PHP failures are render errors: %s', (template, message) => {
    const err = caught(() => render(template));
    expect(err).toBeInstanceOf(TemplateRenderError);
    expect((err as TemplateRenderError).detail).toContain(message);
  });
});
