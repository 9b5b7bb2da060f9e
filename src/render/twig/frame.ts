import { charge } from './runtime/budget.js';
import type { RenderState } from './runtime/state.js';
import type { Value } from './runtime/value.js';

/**
 * The slots of a scope's variables: each name the template body (or one macro's body) uses
 * (reads, sets, loop targets, parameters, globals) gets an index when the template compiles, so a
 * compiled read is an array read instead of a Map lookup. Names only a render brings (request
 * variables, `with` keys) that the code never names have no slot; only `_context` and copies of
 * the scope see them.
 */
export class Slots {
  private readonly index = new Map<string, number>();

  /** The slot of `name`, given one if it has none (compile time only). */
  of(name: string): number {
    let i = this.index.get(name);
    if (i === undefined) {
      i = this.index.size;
      this.index.set(name, i);
    }
    return i;
  }

  /** The slot of `name`, or undefined: render time, which must not grow the table. */
  find(name: string): number | undefined {
    return this.index.get(name);
  }

  get size(): number {
    return this.index.size;
  }

  /** Names by slot. */
  names(): string[] {
    return [...this.index.keys()];
  }
}

/**
 * One scope's variables (Twig's $context). Values sit in slots; `order` keeps the order names
 * were first set, as PHP's array does, for `_context`, `loop.parent` and copies of the scope (a
 * name without a slot is listed by its string). Undefined in a slot means absent (null is a
 * value).
 */
export class Vars {
  constructor(
    readonly slots: Slots,
    readonly values: (Value | undefined)[],
    readonly order: (number | string)[],
    /** Variables whose names the template never uses. */
    private other: Map<string, Value> | undefined,
  ) {}

  static empty(slots: Slots): Vars {
    chargeSlots(slots);
    return new Vars(slots, new Array<Value | undefined>(slots.size), [], undefined);
  }

  /** The variables of `map`, in its order, in slots of `slots` (a block run from a macro). */
  static fromMap(slots: Slots, map: ReadonlyMap<string, Value>): Vars {
    const vars = Vars.empty(slots);
    for (const [name, v] of map) vars.setName(name, v);
    return vars;
  }

  /** Sets a slot, keeping its place in the order if it already holds a value. */
  set(i: number, v: Value): void {
    if (this.values[i] === undefined) this.order.push(i);
    this.values[i] = v;
  }

  /**
   * Removes slots' variables (those a loop created): one pass over the order, where a splice per
   * variable moved the rest of the order each time. A slot is in the order exactly when it holds
   * a value, so what is left out is what was removed.
   */
  deleteAll(slots: readonly number[]): void {
    const values = this.values;
    let removed = 0;
    for (let k = 0; k < slots.length; k++) {
      const i = slots[k]!;
      if (values[i] !== undefined) {
        values[i] = undefined;
        removed++;
      }
    }
    if (removed === 0) return;
    const order = this.order;
    let j = 0;
    for (let r = 0; r < order.length; r++) {
      const k = order[r]!;
      if (typeof k === 'number' && values[k] === undefined) continue;
      order[j++] = k;
    }
    order.length = j;
  }

  /** Sets a variable by name (render-time names: data, request variables, `with` keys). */
  setName(name: string, v: Value): void {
    const i = this.slots.find(name);
    if (i !== undefined) {
      this.set(i, v);
      return;
    }
    this.other ??= new Map();
    if (!this.other.has(name)) this.order.push(name);
    this.other.set(name, v);
  }

  hasName(name: string): boolean {
    const i = this.slots.find(name);
    return i !== undefined ? this.values[i] !== undefined : (this.other?.has(name) ?? false);
  }

  /** A copy: an arrow function's, a block's or a `with`'s scope. */
  copy(): Vars {
    chargeSlots(this.slots);
    return new Vars(
      this.slots,
      this.values.slice(),
      this.order.slice(),
      this.other === undefined ? undefined : new Map(this.other),
    );
  }

  /** The variables in the order they were set. */
  toMap(): Map<string, Value> {
    const names = this.slots.names();
    const out = new Map<string, Value>();
    for (const k of this.order) {
      if (typeof k === 'number') out.set(names[k]!, this.values[k]!);
      else out.set(k, this.other!.get(k)!);
    }
    return out;
  }
}

/**
 * A scope's slots are made or copied in one step of the caller's; a body naming thousands of
 * variables pays for its frames' size (one step per 64 slots), as the calls that make them.
 */
function chargeSlots(slots: Slots): void {
  if (slots.size >= 64) charge(slots.size >> 6);
}

/** One scope of a render: its variables and the shared render state. */
export interface Frame {
  vars: Vars;
  readonly st: RenderState;
}

export type ExprFn = (f: Frame) => Value;
export type StmtFn = (f: Frame) => void;
