import { excerptOfLine } from '../errors/excerpt.js';

/** Template text with helpers to turn an offset into the line, column and excerpt errors carry. */
export class Source {
  readonly code: string;
  private lineStarts: number[] | undefined;

  constructor(code: string) {
    // Twig normalizes line endings before lexing; offsets refer to the normalized text.
    this.code = code.replace(/\r\n?/g, '\n');
  }

  private starts(): number[] {
    if (!this.lineStarts) {
      const starts = [0];
      for (let i = 0; i < this.code.length; i++) if (this.code.charCodeAt(i) === 10) starts.push(i + 1);
      this.lineStarts = starts;
    }
    return this.lineStarts;
  }

  position(offset: number): { line: number; column: number; excerpt: string } {
    const starts = this.starts();
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    const start = starts[lo]!;
    const end = lo + 1 < starts.length ? starts[lo + 1]! - 1 : this.code.length;
    const column = offset - start + 1;
    return { line: lo + 1, column, excerpt: excerptOfLine(this.code.slice(start, end), column) };
  }
}
