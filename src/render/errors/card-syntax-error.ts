import { HeraldError } from '../../errors/herald-error.js';

/** Where in the template output a parse problem sits (1-based), when the parser can tell. */
export interface CardSyntaxPosition {
  readonly line: number;
  readonly column: number;
}

/**
 * The rendered card text is not well-formed JSON, YAML or XML, or (XML, YAML) uses a construct
 * Herald refuses for safety (DOCTYPE, entities, tags, aliases). The position goes both into the
 * message, so a person reading only the text can find the spot, and into `data` for tools.
 */
export class CardSyntaxError extends HeraldError {
  override readonly name = 'CardSyntaxError';
  readonly format: string;
  readonly position: CardSyntaxPosition | undefined;

  constructor(format: 'json' | 'yaml' | 'xml', detail: string, position?: CardSyntaxPosition) {
    const where = position ? `line ${position.line}, column ${position.column}: ` : '';
    super(
      'CARD_SYNTAX',
      { format, detail: where + detail },
      { data: position ? { format, line: position.line, column: position.column } : { format } },
    );
    this.format = format;
    this.position = position;
  }
}
