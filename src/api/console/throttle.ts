import type { Deps } from '../../domain/deps.js';
import { orRedisDown } from '../../ratelimit/redis-errors.js';
import { signInFailuresKey } from '../../redis/keys.js';

/** Sign-in tries one client address may fail within SIGN_IN_WINDOW_MS before it is refused. */
export const SIGN_IN_MAX_FAILURES = 5;
/** The window failures are counted in, from the first one, in ms (10 minutes). */
export const SIGN_IN_WINDOW_MS = 10 * 60_000;
/** Each try while refused extends the wait to at least this, doubled per further try, in ms. */
export const SIGN_IN_PENALTY_BASE_MS = 60_000;
/** The longest wait a refused address is told, in ms (1 hour). */
export const SIGN_IN_PENALTY_MAX_MS = 60 * 60_000;

type ThrottleDeps = Pick<Deps, 'config' | 'redis'>;

/**
 * Counts a sign-in try as a failure before its token is checked, so that tries sent in parallel
 * cannot all pass before the count catches up; `forgive` takes it back when the token was right.
 * Returns the seconds to wait when the address is refused: past SIGN_IN_MAX_FAILURES every try
 * is refused, the right token too, and each one lengthens the wait (up to the maximum), so that
 * hammering never gets through while an operator who waits does.
 */
export async function countSignInTry(deps: ThrottleDeps, address: string): Promise<number | undefined> {
  const key = signInFailuresKey(deps.config.redisPrefix, address);
  const replies = await orRedisDown(() =>
    deps.redis.multi().incr(key).pexpire(key, SIGN_IN_WINDOW_MS, 'NX').pttl(key).exec(),
  );
  if (replies === null) throw new Error('sign-in throttle: transaction aborted');
  for (const [err] of replies) if (err) throw err;
  const tries = Number(replies[0]?.[1]);
  let waitMs = Number(replies[2]?.[1]);
  if (tries <= SIGN_IN_MAX_FAILURES) return undefined;
  const penalty = Math.min(
    SIGN_IN_PENALTY_BASE_MS * 2 ** (tries - SIGN_IN_MAX_FAILURES - 1),
    SIGN_IN_PENALTY_MAX_MS,
  );
  if (penalty > waitMs) {
    await orRedisDown(() => deps.redis.pexpire(key, penalty, 'GT'));
    waitMs = penalty;
  }
  return Math.max(1, Math.ceil(waitMs / 1000));
}

/** The right token: the address's failures are forgotten. */
export async function forgiveSignIn(deps: ThrottleDeps, address: string): Promise<void> {
  await orRedisDown(() => deps.redis.del(signInFailuresKey(deps.config.redisPrefix, address)));
}
