import type { RenderState } from '../runtime/state.js';
import type { Value } from '../runtime/value.js';

/** Arguments after the filtered value; `undefined` marks an argument left at its default. */
export type Args = readonly (Value | undefined)[];

export interface FilterDef {
  /** Parameter names, for named arguments (`|slice(length=2)`). */
  readonly params: readonly string[];
  /** How many leading parameters are required (PHP's ArgumentCountError otherwise). */
  readonly required?: number;
  /** PHP built-ins refuse extra arguments; Twig's own functions ignore them. */
  readonly strictArity?: boolean;
  readonly fn: (st: RenderState, value: Value, args: Args) => Value;
}

export interface FunctionDef {
  readonly params: readonly string[];
  readonly required?: number;
  readonly strictArity?: boolean;
  /** Accepts any number of positional arguments (max, min, cycle...). */
  readonly variadic?: boolean;
  readonly fn: (st: RenderState, args: Args) => Value;
}

export interface TestDef {
  readonly params: readonly string[];
  readonly fn: (st: RenderState, value: Value, args: Args) => boolean;
}

export const filter = (
  params: readonly string[],
  fn: FilterDef['fn'],
  arity: { required?: number; strict?: boolean } = {},
): FilterDef => ({ params, fn, required: arity.required ?? 0, strictArity: arity.strict ?? false });
