import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { DependencyError } from '../../src/errors/index.js';
import { guarded, isUnreachable, StoreTimeoutError } from '../../src/store/db-errors.js';
import { DuplicateRecordError } from '../../src/store/index.js';

/** Node's error for a write after the peer closed the connection, as the driver lets it through. */
const epipe = (): Error =>
  Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE' });

describe('isUnreachable', () => {
  it("takes the driver's network errors and the system errors of a broken connection", () => {
    expect(isUnreachable(new mongoose.mongo.MongoNetworkError('cut'))).toBe(true);
    expect(isUnreachable(epipe())).toBe(true);
    for (const code of ['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT']) {
      expect(isUnreachable(Object.assign(new Error('x'), { code }))).toBe(true);
    }
  });

  it('leaves bad queries and bugs alone', () => {
    expect(isUnreachable(new Error('This socket has been ended by the other party'))).toBe(false); // no code
    expect(isUnreachable(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBe(false);
    expect(isUnreachable(new mongoose.mongo.MongoServerError({ message: 'dup', code: 11000 }))).toBe(false);
    expect(isUnreachable(new TypeError('bug'))).toBe(false);
  });
});

describe('guarded', () => {
  it('turns a broken connection into DependencyError (503) and passes other errors through', async () => {
    const repo = guarded({
      async broken() {
        throw epipe();
      },
      async buggy() {
        throw new TypeError('bug');
      },
    });
    await expect(repo.broken()).rejects.toBeInstanceOf(DependencyError);
    await expect(repo.buggy()).rejects.toBeInstanceOf(TypeError);
  });

  it("turns the driver's duplicate-key error into DuplicateRecordError, so callers need no driver types", async () => {
    const duplicate = new mongoose.mongo.MongoServerError({ message: 'E11000 duplicate key', code: 11000 });
    const repo = guarded({
      async insert() {
        throw duplicate;
      },
    });
    const err = await repo.insert().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DuplicateRecordError);
    expect((err as Error).cause).toBe(duplicate);
  });

  it('leaves a bulk write error as it is, even one whose first write error is a duplicate', async () => {
    // Its code is its first write error's: the second write here failed for another reason, so
    // "a record with that key exists" would hide records that were not stored.
    const bulk = new mongoose.mongo.MongoBulkWriteError(
      {
        message: 'E11000 duplicate key',
        code: 11000,
        writeErrors: [
          { index: 0, code: 11000, errmsg: 'E11000 duplicate key' },
          { index: 1, code: 2, errmsg: 'bad value' },
        ] as never,
      },
      { insertedCount: 0 } as never,
    );
    const repo = guarded({
      async insertMany() {
        throw bulk;
      },
    });
    expect(await repo.insertMany().catch((e: unknown) => e)).toBe(bulk);
  });
});

describe('guarded with a deadline', () => {
  it('fails a call the database does not answer with DependencyError once the deadline has passed', async () => {
    const repo = guarded(
      {
        hang: () => new Promise<never>(() => {}), // a server that keeps the connection and never answers
      },
      50,
    );
    const started = performance.now();
    const err = await repo.hang().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DependencyError);
    expect((err as DependencyError).dependency).toBe('database');
    expect((err as Error).cause).toBeInstanceOf(StoreTimeoutError);
    expect(performance.now() - started).toBeGreaterThanOrEqual(49);
  });

  it('answers what a call answers within the deadline, errors included', async () => {
    const repo = guarded(
      {
        async found() {
          return 'record';
        },
        async broken() {
          throw epipe();
        },
        async buggy() {
          throw new TypeError('bug');
        },
      },
      1_000,
    );
    expect(await repo.found()).toBe('record');
    await expect(repo.broken()).rejects.toBeInstanceOf(DependencyError);
    await expect(repo.buggy()).rejects.toBeInstanceOf(TypeError);
  });
});
