import { type LocalizedText, localized } from '../../errors/catalogue.js';
import { HeraldError } from '../../errors/herald-error.js';
import { excerptAt } from './excerpt.js';

/** Where in the template output a parse problem sits (1-based), when the parser can tell. */
export interface CardSyntaxPosition {
  readonly line: number;
  readonly column: number;
}

/** How a card error names its place in its message: `line N, column M: `, or nothing. */
export const placePrefix = (position: CardSyntaxPosition | undefined): string =>
  position ? `line ${position.line}, column ${position.column}: ` : '';

/** The place prefix in each language, for a message whose rule is worded in each language too. */
export const localizedPlacePrefix = (position: CardSyntaxPosition | undefined): LocalizedText => ({
  'zh-CN': position ? `第 ${position.line} 行第 ${position.column} 列，` : '',
  'en-US': placePrefix(position),
});

/** A card error's place in its `data`: line, column and the excerpt there, when known. */
export const placeData = (position: CardSyntaxPosition | undefined, excerpt: string | undefined) =>
  position
    ? { line: position.line, column: position.column, ...(excerpt !== undefined ? { excerpt } : {}) }
    : {};

/**
 * The rendered card text is not well-formed JSON, YAML or XML, or (XML, YAML) uses a construct
 * Herald refuses for safety (DOCTYPE, entities, tags, aliases). The position goes both into the
 * message, so a person reading only the text can find the spot, and into `data` for tools.
 */
export class CardSyntaxError extends HeraldError {
  override readonly name = 'CardSyntaxError';
  readonly format: 'json' | 'yaml' | 'xml';
  readonly position: CardSyntaxPosition | undefined;
  /** The line of the rendered text at `position` (at most 160 characters around the column). */
  readonly excerpt: string | undefined;
  private readonly problem: LocalizedText;

  /**
   * `detail` in each language where Herald words it; a parser's own message (a string) reads
   * the same in both.
   */
  constructor(
    format: 'json' | 'yaml' | 'xml',
    detail: string | LocalizedText,
    position?: CardSyntaxPosition,
    excerpt?: string,
  ) {
    const problem = typeof detail === 'string' ? localized(detail, detail) : detail;
    const place = localizedPlacePrefix(position);
    super(
      'CARD_SYNTAX',
      {
        format,
        detail: {
          'zh-CN': place['zh-CN'] + problem['zh-CN'],
          'en-US': place['en-US'] + problem['en-US'],
        },
      },
      { data: { format, ...placeData(position, excerpt) } },
    );
    this.format = format;
    this.position = position;
    this.excerpt = excerpt;
    this.problem = problem;
  }

  /**
   * The same error with the excerpt of `text` (the rendered card text it was raised on) at its
   * position: the parsers know offsets, the caller knows the text.
   */
  withExcerpt(text: string): CardSyntaxError {
    if (!this.position || this.excerpt !== undefined) return this;
    return new CardSyntaxError(this.format, this.problem, this.position, excerptAt(text, this.position));
  }
}
