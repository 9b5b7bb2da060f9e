import { randomBytes } from 'node:crypto';

/**
 * The id a 5xx answer or an unexpected delivery failure shows in place of its detail; the log
 * line with the detail carries the same id.
 */
export const newErrorId = (): string => randomBytes(6).toString('hex');
