export type Outcome = 'ok' | 'error';

/**
 * Runs `work` and reports how long it took and whether it succeeded (failures count too);
 * `judge` tells an answer that is a refusal (a relay's 429) from a success.
 */
export async function timed<T>(
  observe: (outcome: Outcome, seconds: number) => void,
  work: () => Promise<T>,
  judge: (result: T) => Outcome = () => 'ok',
): Promise<T> {
  const started = performance.now();
  let outcome: Outcome = 'error';
  try {
    const result = await work();
    outcome = judge(result);
    return result;
  } finally {
    observe(outcome, (performance.now() - started) / 1000);
  }
}
