import type { Redis } from 'ioredis';
import type { Config } from '../config/index.js';
import type { Logger } from '../log/logger.js';
import type { Store } from '../store/index.js';
import type { LocalChanges } from './local-changes.js';

/** What domain functions work with. Built once per process by src/resources.ts. */
export interface Deps {
  readonly config: Config;
  readonly store: Store;
  /** Client for commands; fails fast (no offline queue) so callers can answer 503. */
  readonly redis: Redis;
  readonly log: Logger;
  /** Current time in ms; a function so that a test can pin it. */
  now(): number;
  /** Changes this process made, for its own caches at once (local-changes.ts). */
  readonly changes: LocalChanges;
}
