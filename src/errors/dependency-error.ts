import { HeraldError } from './herald-error.js';

/** Redis or the database did not answer; the client gets 503 and should retry. */
export class DependencyError extends HeraldError {
  override readonly name = 'DependencyError';
  readonly dependency: 'redis' | 'database';
  constructor(dependency: 'redis' | 'database', cause?: unknown) {
    super('DEPENDENCY_DOWN', {}, { cause });
    this.dependency = dependency;
  }
}
