import { HeraldError } from '../../errors/index.js';

/** A rendered KMarkdown message is longer than the platform accepts. */
export class MessageTooLongError extends HeraldError {
  override readonly name = 'MessageTooLongError';
  readonly length: number;
  readonly max: number;
  constructor(length: number, max: number) {
    super('MESSAGE_TOO_LONG', { length, max }, { data: { length, max } });
    this.length = length;
    this.max = max;
  }
}
