import { describe, expect, it } from 'vitest';
import {
  ApiError,
  askWhileUnavailable,
  UNAVAILABLE_FIRST_WAIT_MS,
  UNAVAILABLE_MAX_WAIT_MS,
  UNAVAILABLE_TRIES,
  unavailableWaitMs,
} from '../../console/src/api.ts';

/** Calls answered in turn by `answers` (an ApiError is thrown), with the waits in between. */
function scripted<T>(answers: Array<T | ApiError>) {
  const waits: number[] = [];
  let calls = 0;
  const call = async (): Promise<T> => {
    calls++;
    const next = answers.shift();
    if (next instanceof ApiError) throw next;
    return next as T;
  };
  return { call, wait: async (ms: number) => void waits.push(ms), waits, calls: () => calls };
}

describe('askWhileUnavailable (a replay batch asked again while Herald is out of reach)', () => {
  it('asks again after a 503, a 502, a 504 or no answer, waiting longer each time, and a Retry-After as said', async () => {
    const s = scripted([
      new ApiError(503, 50300, 'unavailable'),
      new ApiError(0, -1, 'Cannot reach the server'),
      new ApiError(504, -1, 'Gateway Timeout', null, 3),
      'done',
    ]);
    expect(await askWhileUnavailable(s.call, s.wait)).toBe('done');
    expect(s.calls()).toBe(4);
    expect(s.waits).toEqual([UNAVAILABLE_FIRST_WAIT_MS, 2 * UNAVAILABLE_FIRST_WAIT_MS, 3_000]);
  });

  it(`gives up after ${UNAVAILABLE_TRIES} tries with the last error`, async () => {
    const last = new ApiError(503, 50300, 'still unavailable');
    const s = scripted<string>([
      ...Array.from({ length: UNAVAILABLE_TRIES - 1 }, () => new ApiError(503, 50300, 'unavailable')),
      last,
      'never asked',
    ]);
    await expect(askWhileUnavailable(s.call, s.wait)).rejects.toBe(last);
    expect(s.calls()).toBe(UNAVAILABLE_TRIES);
  });

  it('asks no more once told to stop (the Stop button during a wait)', async () => {
    const first = new ApiError(503, 50300, 'unavailable');
    const s = scripted<string>([first, 'never asked']);
    let stopped = false;
    const wait = async (ms: number) => {
      await s.wait(ms);
      stopped = true;
    };
    await expect(askWhileUnavailable(s.call, wait, () => !stopped)).rejects.toBe(first);
    expect(s.calls()).toBe(1);
  });

  it('never asks again after an answer that is not about reaching Herald (400, 409, 500)', async () => {
    for (const status of [400, 409, 500]) {
      const s = scripted<string>([new ApiError(status, 40000, 'no'), 'never asked']);
      await expect(askWhileUnavailable(s.call, s.wait)).rejects.toMatchObject({ status });
      expect([s.calls(), s.waits]).toEqual([1, []]);
    }
  });
});

describe('unavailableWaitMs (how long a load that found Herald out of reach waits before it runs again)', () => {
  it('doubles from the first wait up to the longest, follows a Retry-After up to the same bound', () => {
    const down = new ApiError(503, 50300, 'unavailable');
    expect([0, 1, 2, 3, 4, 10].map((tries) => unavailableWaitMs(down, tries))).toEqual([
      UNAVAILABLE_FIRST_WAIT_MS,
      2 * UNAVAILABLE_FIRST_WAIT_MS,
      4 * UNAVAILABLE_FIRST_WAIT_MS,
      8 * UNAVAILABLE_FIRST_WAIT_MS,
      UNAVAILABLE_MAX_WAIT_MS,
      UNAVAILABLE_MAX_WAIT_MS,
    ]);
    expect(unavailableWaitMs(new ApiError(503, 50300, 'unavailable', null, 2), 5)).toBe(2_000);
    expect(unavailableWaitMs(new ApiError(503, 50300, 'unavailable', null, 600), 0)).toBe(
      UNAVAILABLE_MAX_WAIT_MS,
    );
  });

  it('is null for anything else: a refusal, a server error, an error not from the API', () => {
    for (const err of [new ApiError(404, 40401, 'no'), new ApiError(500, 50000, 'bug'), new Error('x')])
      expect(unavailableWaitMs(err, 0)).toBeNull();
  });
});
