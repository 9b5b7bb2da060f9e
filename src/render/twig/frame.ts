import type { RenderState } from './runtime/state.js';
import type { Value } from './runtime/value.js';

/** One scope of a render: its variables (Twig's $context) and the shared render state. */
export interface Frame {
  vars: Map<string, Value>;
  readonly st: RenderState;
}

export type ExprFn = (f: Frame) => Value;
export type StmtFn = (f: Frame) => void;
