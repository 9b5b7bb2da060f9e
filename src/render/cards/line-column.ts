import type { CardSyntaxPosition } from '../errors/card-syntax-error.js';

/** 1-based line and column (in UTF-16 units, as editors count) of `offset` in `text`. */
export function lineColumn(text: string, offset: number): CardSyntaxPosition {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lineStart = before.lastIndexOf('\n') + 1;
  let line = 1;
  for (let i = before.indexOf('\n'); i !== -1; i = before.indexOf('\n', i + 1)) line += 1;
  return { line, column: offset - lineStart + 1 };
}
