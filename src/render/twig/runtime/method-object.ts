import type { RenderState } from './state.js';
import { TwigObject } from './twig-object.js';
import type { Value } from './value.js';

/** Called with its object as `this` (arrow functions that close over it ignore that). */
export type Method = (st: RenderState, args: readonly Value[]) => Value;

/**
 * An object whose methods a template may call (the platform object, dates). Only the methods in
 * the table exist: there is no reflection, so `constructor`, `__proto__` and the like are simply
 * unknown names.
 */
export abstract class MethodObject extends TwigObject {
  /** Lower-cased method name -> implementation (a null-prototype record or a Map). */
  protected abstract get methods(): ReadonlyMap<string, Method>;

  /**
   * Whether `name` is a key of the object's array cast that is no property (DateTime's `date`,
   * `timezone`): Twig reads it, and PHP warns "Undefined property".
   */
  pseudoProperty(_name: string): boolean {
    return false;
  }

  /** Twig's lookup: `name`, then `getName`, `isName`, `hasName`, all case-insensitively. */
  findMethod(name: string): Method | undefined {
    const lc = name.toLowerCase();
    return (
      this.methods.get(lc) ??
      this.methods.get(`get${lc}`) ??
      this.methods.get(`is${lc}`) ??
      this.methods.get(`has${lc}`)
    );
  }
}
