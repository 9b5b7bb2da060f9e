import { HeraldError } from '../../errors/herald-error.js';

/**
 * The card parsed but breaks a card rule. `path` names the offending value the way a template
 * author reads it (`card[0].modules[3].elements`), `rule` says what is wrong in plain words.
 */
export class CardInvalidError extends HeraldError {
  override readonly name = 'CardInvalidError';
  readonly path: string;
  readonly rule: string;

  constructor(path: string, rule: string) {
    super('CARD_INVALID', { detail: `${path}: ${rule}` }, { data: { path, rule } });
    this.path = path;
    this.rule = rule;
  }
}
