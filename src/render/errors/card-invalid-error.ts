import { HeraldError } from '../../errors/herald-error.js';
import { type CardPath, formatPath } from '../cards/card-path.js';
import { type CardSyntaxPosition, placeData, placePrefix } from './card-syntax-error.js';

/**
 * The card parsed but breaks a card rule. `path` names the offending value the way a template
 * author reads it (`card[0].modules[3].elements`), `rule` says what is wrong in plain words.
 * Raised on the parsed value, it learns where that value is in the rendered text afterwards
 * (`locatedAt`): line, column and the excerpt of that line, in the message and in `data`, like
 * a CardSyntaxError's.
 */
export class CardInvalidError extends HeraldError {
  override readonly name = 'CardInvalidError';
  readonly path: string;
  readonly rule: string;
  /** The path as segments, to find the value in the rendered text. */
  readonly at: CardPath;
  readonly position: CardSyntaxPosition | undefined;
  readonly excerpt: string | undefined;

  constructor(at: CardPath, rule: string, position?: CardSyntaxPosition, excerpt?: string) {
    const path = formatPath(at);
    super(
      'CARD_INVALID',
      { detail: `${placePrefix(position)}${path}: ${rule}` },
      { data: { path, rule, ...placeData(position, excerpt) } },
    );
    this.path = path;
    this.rule = rule;
    this.at = at;
    this.position = position;
    this.excerpt = excerpt;
  }

  /** The same error, placed at `position` of the rendered text (whose line there is `excerpt`). */
  locatedAt(position: CardSyntaxPosition, excerpt: string): CardInvalidError {
    return new CardInvalidError(this.at, this.rule, position, excerpt);
  }
}
