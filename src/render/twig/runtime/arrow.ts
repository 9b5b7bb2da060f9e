import type { RenderState } from './state.js';
import { TwigObject } from './twig-object.js';
import type { Value } from './value.js';

/** An arrow function written in the template (`v => v * 2`); only filters can call it. */
export class Arrow extends TwigObject {
  readonly phpClass = 'Closure';
  constructor(readonly call: (st: RenderState, args: readonly Value[]) => Value) {
    super();
  }
}
