/**
 * Calls `fn` in batches of `batch` until `seconds` have passed, after a warm-up of `warmup` calls
 * (JIT); returns calls per second.
 */
export function callsPerSecond(fn: () => unknown, seconds: number, warmup = 500, batch = 100): number {
  for (let i = 0; i < warmup; i++) fn();
  let calls = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  do {
    for (let i = 0; i < batch; i++) fn();
    calls += batch;
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  } while (elapsed < seconds);
  return calls / elapsed;
}
