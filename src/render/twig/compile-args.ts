import type { Arg } from './ast.js';
import { CompileFault } from './compile-fault.js';

/**
 * Orders call arguments by parameter position, as PHP Twig does with named arguments.
 * Returns one entry per position; `undefined` means "left at its default".
 */
export function orderArgs<T>(
  args: readonly Arg[],
  params: readonly string[],
  variadic: boolean,
  what: string,
  pos: number,
  compile: (a: Arg) => T,
): (T | undefined)[] {
  const out: (T | undefined)[] = [];
  let named = false;
  for (const a of args) {
    if (a.name === undefined) {
      if (named)
        throw new CompileFault(`Positional arguments cannot be used after named arguments for ${what}.`, pos);
      out.push(compile(a));
      continue;
    }
    named = true;
    const i = params.indexOf(a.name);
    if (i < 0 || variadic) throw new CompileFault(`Unknown argument "${a.name}" for ${what}.`, a.value.pos);
    if (out[i] !== undefined)
      throw new CompileFault(`Argument "${a.name}" is defined twice for ${what}.`, a.value.pos);
    while (out.length < i) out.push(undefined);
    out[i] = compile(a);
  }
  return out;
}
