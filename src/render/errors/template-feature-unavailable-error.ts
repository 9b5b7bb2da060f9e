import { HeraldError } from '../../errors/index.js';

/**
 * Valid Twig that Herald deliberately does not offer (anything touching files or the host:
 * include, extends, source, constant, dump, ...).
 */
export class TemplateFeatureUnavailableError extends HeraldError {
  override readonly name = 'TemplateFeatureUnavailableError';
  readonly line: number;
  readonly column: number;
  readonly feature: string;
  constructor(feature: string, line: number, column: number, excerpt: string) {
    super('TEMPLATE_FEATURE_UNAVAILABLE', { line, column, feature }, { data: { line, column, excerpt } });
    this.line = line;
    this.column = column;
    this.feature = feature;
  }
}
