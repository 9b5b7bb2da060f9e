import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { unavailableWaitMs } from '../api.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Runs `load` when `deps` change (and every `refreshMs` when given, while the tab is visible).
 * Only the latest call's answer is kept, so a slow old answer never overwrites a newer one. A
 * load that found Herald out of reach (a 503 while its store is slow) is run again on its own,
 * after 1, 2, 4, 8 s and then every 10 s (unavailableWaitMs), its error shown meanwhile.
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[], refreshMs?: number): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<Error>();
  const [loading, setLoading] = useState(true);
  const seq = useRef(0);
  const again = useRef<{ timer?: ReturnType<typeof setTimeout>; tries: number }>({ tries: 0 });
  const latest = useRef<() => void>(() => {});
  // The caller names what the load depends on (as with useEffect).
  const run = useCallback(() => {
    const mine = ++seq.current;
    clearTimeout(again.current.timer);
    setLoading(true);
    load().then(
      (d) => {
        if (mine !== seq.current) return;
        again.current.tries = 0;
        setData(d);
        setError(undefined);
        setLoading(false);
      },
      (e: unknown) => {
        if (mine !== seq.current) return;
        setError(e instanceof Error ? e : new Error(String(e)));
        setLoading(false);
        const waitMs = unavailableWaitMs(e, again.current.tries);
        if (waitMs === null) return;
        again.current.tries++;
        again.current.timer = setTimeout(() => {
          if (mine === seq.current) latest.current();
        }, waitMs);
      },
    );
  }, deps);
  latest.current = run;
  // Another load (deps changed) or none (unmounted): an answer still on its way, or its retry,
  // belongs to the old one, and the new one starts from the first wait.
  useEffect(
    () => () => {
      seq.current++;
      clearTimeout(again.current.timer);
      again.current.tries = 0;
    },
    [run],
  );
  useEffect(() => {
    run();
    if (!refreshMs) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') run();
    }, refreshMs);
    return () => clearInterval(timer);
  }, [run, refreshMs]);
  return { data, error, loading, reload: run };
}
