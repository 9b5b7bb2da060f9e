import { TwigObject } from './twig-object.js';

/**
 * PHP Twig's Markup: what `{% set x %}...{% endset %}` and macro calls produce. It prints as its
 * text, but it is an object: escaping leaves it alone, arithmetic with it is a type error,
 * `starts with` and `same as` do not treat it as a string, and its length is its text's length.
 */
export class Markup extends TwigObject {
  readonly phpClass = 'Twig\\Markup';
  constructor(readonly text: string) {
    super();
  }
  toTwigString(): string {
    return this.text;
  }
}

/** Twig returns '' rather than an empty Markup. */
export function markup(text: string): Markup | string {
  return text === '' ? '' : new Markup(text);
}
