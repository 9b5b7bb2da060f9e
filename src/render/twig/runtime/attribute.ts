import { warn } from './budget.js';
import { fail } from './fault.js';
import { toKey } from './keys.js';
import { MethodObject } from './method-object.js';
import { type Key, PhpArray } from './php-array.js';
import type { RenderState } from './state.js';
import type { Value } from './value.js';

export type AttrType = 'any' | 'array' | 'method';

/** The key `attr` reads from an array: PHP's isset() refuses an array or object as a key. */
function arrayItemKey(attr: Value): Key {
  if (attr instanceof PhpArray || (typeof attr === 'object' && attr !== null)) {
    return fail('Illegal offset type in isset or empty');
  }
  return toKey(attr);
}

/**
 * Twig's getAttribute with strict_variables off: `a.b`, `a[b]` and `a.b()`. Arrays answer their
 * keys, method objects answer only their declared methods, everything else answers null.
 */
export function getAttribute(
  st: RenderState,
  obj: Value,
  attr: Value,
  type: AttrType,
  args: readonly Value[],
): Value {
  if (obj instanceof PhpArray) {
    if (type === 'method') return null;
    return obj.get(arrayItemKey(attr)) ?? null;
  }
  if (obj instanceof MethodObject && type !== 'array') {
    if (typeof attr !== 'string' && typeof attr !== 'number' && typeof attr !== 'bigint') return null;
    if (type === 'any' && obj.pseudoProperty(String(attr))) {
      warn(`Undefined property: ${obj.phpClass}::$${attr}`);
      return null;
    }
    const m = obj.findMethod(String(attr));
    if (!m) return null;
    st.step();
    // the object is `this`: a table shared by all instances (PLATFORM's) reads its own from it
    return m.call(obj, st, args);
  }
  return null;
}

/** `a.b is defined`. */
export function hasAttribute(obj: Value, attr: Value, type: AttrType): boolean {
  if (obj instanceof PhpArray) {
    if (type === 'method') return false;
    return obj.has(arrayItemKey(attr));
  }
  if (obj instanceof MethodObject && type !== 'array') {
    return (
      (typeof attr === 'string' || typeof attr === 'number' || typeof attr === 'bigint') &&
      ((type === 'any' && obj.pseudoProperty(String(attr))) || obj.findMethod(String(attr)) !== undefined)
    );
  }
  return false;
}

export function requireArray(v: Value, what: string): PhpArray {
  if (v instanceof PhpArray) return v;
  return fail(`${what} must be an array`);
}
