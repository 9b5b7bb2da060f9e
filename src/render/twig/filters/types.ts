import type { RenderState } from '../runtime/state.js';
import type { Value } from '../runtime/value.js';

/** Arguments after the filtered value; `undefined` marks an argument left at its default. */
export type Args = readonly (Value | undefined)[];

export interface FilterDef {
  /** Parameter names, for named arguments (`|slice(length=2)`). */
  readonly params: readonly string[];
  readonly fn: (st: RenderState, value: Value, args: Args) => Value;
}

export interface FunctionDef {
  readonly params: readonly string[];
  /** Accepts any number of positional arguments (max, min, cycle...). */
  readonly variadic?: boolean;
  readonly fn: (st: RenderState, args: Args) => Value;
}

export interface TestDef {
  readonly params: readonly string[];
  readonly fn: (st: RenderState, value: Value, args: Args) => boolean;
}

export const filter = (params: readonly string[], fn: FilterDef['fn']): FilterDef => ({ params, fn });
