import type { Expr } from './ast.js';

/**
 * Twig's safe analysis (SafeAnalysisNodeVisitor), as far as Herald's filters need it: for which
 * escaping strategies an expression's value is already safe. Used for filters with
 * `pre_escape: html` (nl2br, spaceless) and inside `{% autoescape %}`.
 */
export function safeFor(e: Expr): ReadonlySet<string> | 'all' {
  switch (e.k) {
    case 'const':
    case 'macrocall':
      return 'all';
    case 'cond':
      return intersect(safeFor(e.t ?? e.c), safeFor(e.f));
    case 'binary':
      // `a ?? b` is a conditional in Twig (NullCoalesceExpression): safe where both sides are
      return e.op === '??' ? intersect(safeFor(e.l), safeFor(e.r)) : new Set();
    case 'filter':
      if (e.name === 'raw') return 'all';
      if (e.name === 'nl2br' || e.name === 'spaceless') return new Set(['html']);
      if (e.name === 'escape' || e.name === 'e') {
        const arg = e.args[0]?.value;
        if (!arg) return new Set(['html']);
        return arg.k === 'const' && typeof arg.value === 'string' ? new Set([arg.value]) : new Set();
      }
      return new Set();
    default:
      return new Set();
  }
}

export function isSafeFor(e: Expr, strategy: string): boolean {
  const s = safeFor(e);
  return s === 'all' || s.has(strategy);
}

function intersect(
  a: ReadonlySet<string> | 'all',
  b: ReadonlySet<string> | 'all',
): ReadonlySet<string> | 'all' {
  if (a === 'all') return b;
  if (b === 'all') return a;
  return new Set([...a].filter((s) => b.has(s)));
}

/** Filters whose input Twig escapes for HTML first unless it is already safe. */
export const PRE_ESCAPE_HTML: ReadonlySet<string> = new Set(['nl2br', 'spaceless']);
