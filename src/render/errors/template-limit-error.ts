import { HeraldError, type LocalizedText } from '../../errors/index.js';

/**
 * A render (or compile) hit one of the resource bounds in limits.ts. `limit` names the bound so a
 * template author can tell which one; line/column are filled when the position is known. The
 * detail is Herald's own text, so it is written in both languages (the message follows the
 * reader's); `detail` keeps the English one.
 */
export class TemplateLimitError extends HeraldError {
  override readonly name = 'TemplateLimitError';
  readonly limit: string;
  readonly detail: string;
  constructor(
    limit: string,
    detail: LocalizedText,
    position?: { line: number; column: number; excerpt: string },
  ) {
    super('TEMPLATE_LIMIT', { limit, detail }, { data: { limit, ...(position ?? {}) } });
    this.limit = limit;
    this.detail = detail['en-US'];
  }
}
