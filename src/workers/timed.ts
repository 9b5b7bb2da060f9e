export type Outcome = 'ok' | 'error';

/** Runs `work` and reports how long it took and whether it succeeded (failures count too). */
export async function timed<T>(
  observe: (outcome: Outcome, seconds: number) => void,
  work: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  let outcome: Outcome = 'error';
  try {
    const result = await work();
    outcome = 'ok';
    return result;
  } finally {
    observe(outcome, (performance.now() - started) / 1000);
  }
}
