/**
 * A write the database refused because a record with the same unique key exists. The store's
 * own type, so that no layer above it needs the driver's error classes or codes (guarded()
 * turns the driver's duplicate-key error into this).
 */
export class DuplicateRecordError extends Error {
  override readonly name = 'DuplicateRecordError';

  constructor(options: { cause?: unknown } = {}) {
    super('a record with the same key exists', options);
  }
}
