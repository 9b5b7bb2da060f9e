import { isIPv4, isIPv6 } from 'node:net';
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

/** Longest text kept of a client address that is not an IP address (a proxy's `unknown`). */
const MAX_OTHER_ADDRESS_CHARS = 64;

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted IPv4 part included). */
function ipv6Groups(ip: string): number[] {
  let head = ip;
  const tail: number[] = [];
  const lastColon = ip.lastIndexOf(':');
  if (ip.slice(lastColon + 1).includes('.')) {
    const [a = 0, b = 0, c = 0, d = 0] = ip
      .slice(lastColon + 1)
      .split('.')
      .map(Number);
    tail.push(a * 256 + b, c * 256 + d);
    head = ip.slice(0, lastColon);
    if (head.endsWith(':')) head += ':';
  }
  const [left = '', right] = head.split('::');
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const l = parse(left);
  const r = right === undefined ? [] : parse(right);
  const zeros = 8 - tail.length - l.length - r.length;
  return [...l, ...Array<number>(Math.max(0, zeros)).fill(0), ...r, ...tail];
}

/**
 * What a client address is counted as: an IPv4 address as it is (an IPv4-mapped IPv6 address
 * too), an IPv6 address by its /64, which one host is usually given whole and could otherwise
 * step through to escape its count.
 */
export function throttleAddress(ip: string): string {
  const address = ip.replace(/%.*$/, '');
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return ip.slice(0, MAX_OTHER_ADDRESS_CHARS);
  const g = ipv6Groups(address);
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) {
    const [hi = 0, lo = 0] = g.slice(6);
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
  }
  return `${g
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(':')}::/64`;
}

/**
 * Counts a sign-in try as a failure before its token is checked, so that tries sent in parallel
 * cannot all pass before the count catches up; `forgive` takes it back when the token was right.
 * Returns the seconds to wait when the address is refused: past SIGN_IN_MAX_FAILURES every try
 * is refused, the right token too, and each one lengthens the wait (up to the maximum), so that
 * hammering never gets through while an operator who waits does.
 */
export async function countSignInTry(deps: ThrottleDeps, address: string): Promise<number | undefined> {
  const key = signInFailuresKey(deps.config.redisPrefix, throttleAddress(address));
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

/** The operators' right token: the address's failures are forgotten. */
export async function forgiveSignIn(deps: ThrottleDeps, address: string): Promise<void> {
  await orRedisDown(() =>
    deps.redis.del(signInFailuresKey(deps.config.redisPrefix, throttleAddress(address))),
  );
}

/** Decrements a count, deleting it at zero (never below: a count that expired meanwhile stays gone). */
const TAKE_BACK_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local n = redis.call('DECR', KEYS[1])
if n <= 0 then redis.call('DEL', KEYS[1]) end
return n
`;

/**
 * A bot's right token: only this try, counted as a failure before its check, is taken back. The
 * address's other failures stay: whoever holds any bot's token could otherwise clear the count
 * between guesses of the operators' token (forgiveSignIn is for that token alone).
 */
export async function takeBackSignInTry(deps: ThrottleDeps, address: string): Promise<void> {
  const key = signInFailuresKey(deps.config.redisPrefix, throttleAddress(address));
  await orRedisDown(() => deps.redis.eval(TAKE_BACK_SCRIPT, 1, key));
}
