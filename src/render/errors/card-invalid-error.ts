import type { LocalizedText } from '../../errors/catalogue.js';
import { HeraldError } from '../../errors/herald-error.js';
import { type CardPath, formatPath } from '../cards/card-path.js';
import { type CardSyntaxPosition, localizedPlacePrefix, placeData } from './card-syntax-error.js';

/**
 * The card parsed but breaks a card rule. `path` names the offending value the way a template
 * author reads it (`card[0].modules[3].elements`), `rule` says what is wrong in plain words, in
 * each language. Raised on the parsed value, it learns where that value is in the rendered text
 * afterwards (`locatedAt`): line, column and the excerpt of that line, in the message and in
 * `data`, like a CardSyntaxError's.
 *
 * `data.rule` is the English rule: clients read it as a string, and the message carries the
 * reader's language.
 */
export class CardInvalidError extends HeraldError {
  override readonly name = 'CardInvalidError';
  readonly path: string;
  readonly rule: LocalizedText;
  /** The path as segments, to find the value in the rendered text. */
  readonly at: CardPath;
  readonly position: CardSyntaxPosition | undefined;
  readonly excerpt: string | undefined;

  constructor(at: CardPath, rule: LocalizedText, position?: CardSyntaxPosition, excerpt?: string) {
    const path = formatPath(at);
    const place = localizedPlacePrefix(position);
    const detail: LocalizedText = {
      'zh-CN': `${place['zh-CN']}${path}：${rule['zh-CN']}`,
      'en-US': `${place['en-US']}${path}: ${rule['en-US']}`,
    };
    super(
      'CARD_INVALID',
      { detail },
      { data: { path, rule: rule['en-US'], ...placeData(position, excerpt) } },
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
