import { HeraldError } from '../../errors/index.js';

/** A valid template failed while rendering particular data (e.g. division by zero). */
export class TemplateRenderError extends HeraldError {
  override readonly name = 'TemplateRenderError';
  readonly line: number;
  readonly column: number;
  readonly excerpt: string;
  readonly detail: string;
  constructor(detail: string, line: number, column: number, excerpt: string) {
    super('TEMPLATE_RENDER', { line, column, detail }, { data: { line, column, excerpt } });
    this.line = line;
    this.column = column;
    this.excerpt = excerpt;
    this.detail = detail;
  }
}
