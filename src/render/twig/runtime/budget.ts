/**
 * The step budget of the render in progress. Renders are synchronous and never nested, so one
 * module-level slot is enough; it lets deep helpers (array views, comparisons) charge their work
 * without every signature carrying the render state.
 */
export interface Budget {
  step(n?: number): void;
  warn(message: string): void;
}

let current: Budget | undefined;

export function enterBudget(b: Budget): Budget | undefined {
  const previous = current;
  current = b;
  return previous;
}

export function leaveBudget(previous: Budget | undefined): void {
  current = previous;
}

/**
 * Records a PHP warning (or notice) on the current render: PHP prints its output anyway, so the
 * caller goes on with PHP's result. The enclosing compiled node adds the position.
 */
export function warn(message: string): void {
  current?.warn(message);
}

/** Charges `n` units to the current render (no-op outside a render). */
export function charge(n: number): void {
  if (current !== undefined && n > 0) current.step(n);
}
