// PHP's 64-bit integers in the render runtime (src/render/twig/runtime/int64.ts and the operators
// that use it): random int64 operands checked against exact BigInt arithmetic, with PHP's rule
// for a result beyond int64 (the float of (double)a op (double)b).
import { describe, expect, it } from 'vitest';
import { compare, identical } from '../../../../src/render/twig/runtime/compare.js';
import { toStr } from '../../../../src/render/twig/runtime/convert.js';
import {
  floatToInt,
  floatToIntCapped,
  INT64_MAX,
  INT64_MIN,
  intOf,
  powInt,
} from '../../../../src/render/twig/runtime/int64.js';
import { add, div, floorDiv, mod, mul, neg, sub } from '../../../../src/render/twig/runtime/ops.js';
import type { Value } from '../../../../src/render/twig/runtime/value.js';
import { seeded } from '../../../helpers/seeded.js';

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A template value for an int64: a number within ±(2^53 - 1), else a bigint (the invariant). */
const v = (b: bigint): Value => (b <= SAFE && b >= -SAFE ? Number(b) : b);

/** PHP's result of an int operation whose exact value is `exact`. */
function php(exact: bigint, float: () => number): Value {
  return exact > INT64_MAX || exact < INT64_MIN ? float() : v(exact);
}

/** Random int64 operands spread over every magnitude, with the boundaries mixed in. */
function operands(n: number): bigint[] {
  const rand = seeded(0x1264);
  const edges = [0n, 1n, -1n, SAFE, SAFE + 1n, -SAFE - 1n, INT64_MAX, INT64_MIN, 2n ** 32n, 3037000499n];
  const out = [...edges];
  while (out.length < n) {
    const bits = 1 + Math.floor(rand() * 63);
    let b = 0n;
    for (let i = 0; i < bits; i += 16) b = (b << 16n) | BigInt(Math.floor(rand() * 65536));
    b &= (1n << BigInt(bits)) - 1n;
    out.push(rand() < 0.5 ? -b : b);
  }
  return out;
}

describe('int64 arithmetic', () => {
  const xs = operands(40);

  it('adds, subtracts and multiplies exactly within int64 and overflows to PHP floats', () => {
    for (const a of xs) {
      for (const b of xs) {
        const [x, y] = [v(a), v(b)];
        const fx = Number(a);
        const fy = Number(b);
        expect(add(x, y), `${a} + ${b}`).toStrictEqual(php(a + b, () => fx + fy));
        expect(sub(x, y), `${a} - ${b}`).toStrictEqual(php(a - b, () => fx - fy));
        const p = mul(x, y);
        expect(p === 0 ? 0 : p, `${a} * ${b}`).toStrictEqual(php(a * b, () => fx * fy));
      }
    }
  });

  it('divides to an int when exact, else to the float quotient; % and // follow PHP', () => {
    for (const a of xs) {
      for (const b of xs) {
        if (b === 0n) {
          expect(() => div(v(a), v(b))).toThrow('Division by zero');
          expect(() => mod(v(a), v(b))).toThrow('Modulo by zero');
          continue;
        }
        const q = a % b === 0n ? php(a / b, () => Number(a) / Number(b)) : Number(a) / Number(b);
        expect(div(v(a), v(b)), `${a} / ${b}`).toStrictEqual(q);
        expect(mod(v(a), v(b)), `${a} % ${b}`).toStrictEqual(v(a % b));
        expect(floorDiv(v(a), v(b)), `${a} // ${b}`).toStrictEqual(floatToInt(Math.floor(Number(q))));
      }
    }
  });

  it('orders and compares ints exactly, also across the 2^53 boundary', () => {
    for (const a of xs) {
      for (const b of xs) {
        const want = a < b ? -1 : a > b ? 1 : 0;
        expect(compare(v(a), v(b)), `${a} <=> ${b}`).toBe(want);
        expect(compare(String(a), String(b)), `"${a}" <=> "${b}"`).toBe(want);
        expect(identical(v(a), v(b))).toBe(a === b);
      }
      expect(toStr(v(a))).toBe(String(a));
    }
  });

  it('negates PHP_INT_MIN to a float, and neighbours of 2^53 stay apart', () => {
    expect(neg(INT64_MIN)).toBe(2 ** 63);
    expect(neg(INT64_MAX)).toBe(-INT64_MAX);
    expect(add(Number.MAX_SAFE_INTEGER, 2)).toBe(SAFE + 2n);
    expect(compare(SAFE + 2n, SAFE + 1n)).toBe(1);
    expect(compare(SAFE + 2n, 2 ** 53)).toBe(0); // an int against a float (2^53 is one): as doubles
  });
});

describe('int64 helpers', () => {
  it('casts floats like PHP: modulo 2^64 beyond int64, clamped when read from a string', () => {
    expect(floatToInt(1e19)).toBe(-8446744073709551616n);
    expect(floatToInt(9.2233720368547758e18)).toBe(INT64_MIN);
    expect(floatToInt(-1.5)).toBe(-1);
    expect(floatToInt(Number.NaN)).toBe(0);
    expect(floatToInt(Number.POSITIVE_INFINITY)).toBe(0);
    expect(floatToIntCapped(1e20)).toBe(INT64_MAX);
    expect(floatToIntCapped(-1e20)).toBe(INT64_MIN);
  });

  it('normalizes: a safe int is a number, a bigint never is, and int64 overflow is undefined', () => {
    expect(intOf(5n)).toBe(5);
    expect(intOf(SAFE + 1n)).toBe(SAFE + 1n);
    expect(intOf(INT64_MAX + 1n)).toBeUndefined();
  });

  it('raises to powers by squaring, switching to a float where PHP does', () => {
    expect(powInt(2n, 62n)).toBe(4611686018427387904n);
    expect(powInt(-2n, 63n)).toBe(INT64_MIN);
    expect(powInt(2n, 63n)).toBe(2 ** 63);
    expect(powInt(3n, 40n)).toBe(1.2157665459056929e19);
    expect(powInt(7n, 22n)).toBe(3909821048582988049n);
    expect(powInt(1n, INT64_MAX)).toBe(1);
    expect(powInt(0n, 0n)).toBe(1);
  });
});
