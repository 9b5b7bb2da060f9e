import { HeraldError } from './herald-error.js';

/** A record that does not exist, or that belongs to someone else (we never say which). */
export class NotFoundError extends HeraldError {
  override readonly name = 'NotFoundError';
  constructor(resource: string) {
    super('NOT_FOUND', { resource });
  }
}
