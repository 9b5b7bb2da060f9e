/** Longest excerpt a render or card error carries, in characters. */
export const MAX_EXCERPT_LENGTH = 160;

/**
 * The excerpt of one line that an error at `column` (1-based) shows: the whole line, or the
 * MAX_EXCERPT_LENGTH characters around the column when the line is longer.
 */
export function excerptOfLine(line: string, column: number): string {
  if (line.length <= MAX_EXCERPT_LENGTH) return line;
  const from = Math.max(0, column - MAX_EXCERPT_LENGTH / 2);
  return line.slice(from, from + MAX_EXCERPT_LENGTH);
}

/** The excerpt of `text` at a 1-based line and column (see excerptOfLine). */
export function excerptAt(
  text: string,
  position: { readonly line: number; readonly column: number },
): string {
  const line = text.split(/\r\n?|\n/)[position.line - 1] ?? '';
  return excerptOfLine(line, position.column);
}
