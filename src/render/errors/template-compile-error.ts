import { HeraldError } from '../../errors/index.js';

/** The template text is not valid Twig (or uses syntax we reject); found before any render. */
export class TemplateCompileError extends HeraldError {
  override readonly name = 'TemplateCompileError';
  readonly line: number;
  readonly column: number;
  readonly excerpt: string;
  readonly detail: string;
  constructor(detail: string, line: number, column: number, excerpt: string) {
    super('TEMPLATE_COMPILE', { line, column, detail }, { data: { line, column, excerpt } });
    this.line = line;
    this.column = column;
    this.excerpt = excerpt;
    this.detail = detail;
  }
}
