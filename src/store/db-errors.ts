import mongoose from 'mongoose';
import { DependencyError } from '../errors/index.js';
import { DuplicateRecordError } from './duplicate-record-error.js';

const { MongoNetworkError, MongoServerSelectionError, MongoNotConnectedError, MongoTopologyClosedError } =
  mongoose.mongo;

/**
 * System error codes (Node's `code`) of a connection that broke or could not be made. The driver
 * wraps most socket errors in MongoNetworkError but lets some through: a command written after
 * the server (or a proxy or load balancer in between) closed the connection rejects with Node's
 * own EPIPE error, seen when a test cut the database off mid-connection.
 */
const CONNECTION_ERROR_CODES: ReadonlySet<string> = new Set([
  'EPIPE',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTCONN',
  'ERR_SOCKET_CLOSED',
]);

/** Errors that mean "the database is not reachable", as opposed to a bad query or a bug. */
export function isUnreachable(err: unknown): boolean {
  return (
    err instanceof MongoNetworkError ||
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNotConnectedError ||
    err instanceof MongoTopologyClosedError ||
    (err instanceof Error && CONNECTION_ERROR_CODES.has(String((err as NodeJS.ErrnoException).code)))
  );
}

/** MongoDB's duplicate-key error code (unique index violated). */
export const DUPLICATE_KEY = 11000;

export function isDuplicateKey(err: unknown): boolean {
  return (
    err instanceof mongoose.mongo.MongoServerError &&
    // A bulk write's error takes the code of its first write error, whatever the others were:
    // only its caller, looking at each write error, can tell what was stored (insertNew).
    !(err instanceof mongoose.mongo.MongoBulkWriteError) &&
    err.code === DUPLICATE_KEY
  );
}

/**
 * Runs a single-document upsert, once more if it lost a race: two first-time upserts of one
 * record can both try the insert, and the unique index refuses the second; its retry finds the
 * winner's record and updates it (MongoDB retries some of these itself, FerretDB does not).
 */
export async function upsertRetryingOnce<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    return run();
  }
}

/** The database did not answer a repository call within its deadline. */
export class StoreTimeoutError extends Error {
  override readonly name = 'StoreTimeoutError';
  constructor(ms: number) {
    super(`the database did not answer within ${ms} ms`);
  }
}

/**
 * `call`, or DependencyError once `ms` have passed without its answer. The driver bounds only
 * server selection: an operation on a connection whose server stopped answering waits until the
 * driver's monitor gives up on the server (up to heartbeat + connect timeout, 40 s by default).
 * The call goes on in the background; a write may still be applied when the server answers.
 */
function withinDeadline<R>(call: Promise<R>, ms: number): Promise<R> {
  return new Promise<R>((resolve, reject) => {
    // setImmediate: an answer that arrived while the event loop was busy is read first.
    const timer = setTimeout(
      () => setImmediate(() => reject(new DependencyError('database', new StoreTimeoutError(ms)))),
      ms,
    );
    call.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/**
 * Wraps every async method of a repository so that the driver's errors callers act on surface
 * as types of Herald's own: an unreachable database as DependencyError (503) instead of a driver
 * error (500), a unique key already taken as DuplicateRecordError. With `deadlineMs`, a call
 * that has no answer by then (the server stopped answering) fails with DependencyError too.
 */
export function guarded<T extends object>(repo: T, deadlineMs?: number): T {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(repo)) {
    if (typeof fn !== 'function') {
      out[name] = fn;
      continue;
    }
    out[name] = async (...args: unknown[]) => {
      try {
        const call = (fn as (...a: unknown[]) => Promise<unknown>).apply(repo, args);
        return await (deadlineMs === undefined ? call : withinDeadline(Promise.resolve(call), deadlineMs));
      } catch (err) {
        if (isUnreachable(err)) throw new DependencyError('database', err);
        if (isDuplicateKey(err)) throw new DuplicateRecordError({ cause: err });
        throw err;
      }
    };
  }
  return out as T;
}
