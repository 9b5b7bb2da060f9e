import { HeraldError } from '../../errors/index.js';

/**
 * A render (or compile) hit one of the resource bounds in limits.ts. `limit` names the bound so a
 * template author can tell which one; line/column are filled when the position is known.
 */
export class TemplateLimitError extends HeraldError {
  override readonly name = 'TemplateLimitError';
  readonly limit: string;
  readonly detail: string;
  constructor(limit: string, detail: string, position?: { line: number; column: number; excerpt: string }) {
    super('TEMPLATE_LIMIT', { limit, detail }, { data: { limit, ...(position ?? {}) } });
    this.limit = limit;
    this.detail = detail;
  }
}
