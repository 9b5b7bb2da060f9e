import type { LocalizedText } from './catalogue.js';
import { HeraldError } from './herald-error.js';

/**
 * Bad input: names the offending field and the rule it broke. `rule` is either one text for both
 * languages (e.g. a parser message) or a text per language.
 */
export class ValidationError extends HeraldError {
  override readonly name = 'ValidationError';
  readonly field: string;

  constructor(field: string, rule: string | LocalizedText) {
    const text: LocalizedText = typeof rule === 'string' ? { 'zh-CN': rule, 'en-US': rule } : rule;
    const detail: LocalizedText = field
      ? { 'zh-CN': `${field}：${text['zh-CN']}`, 'en-US': `${field}: ${text['en-US']}` }
      : text;
    super('VALIDATION', { detail }, { data: { field } });
    this.field = field;
  }
}
