import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Runs `load` when `deps` change (and every `refreshMs` when given, while the tab is visible).
 * Only the latest call's answer is kept, so a slow old answer never overwrites a newer one.
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[], refreshMs?: number): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<Error>();
  const [loading, setLoading] = useState(true);
  const seq = useRef(0);
  // The caller names what the load depends on (as with useEffect).
  const run = useCallback(() => {
    const mine = ++seq.current;
    setLoading(true);
    load().then(
      (d) => {
        if (mine !== seq.current) return;
        setData(d);
        setError(undefined);
        setLoading(false);
      },
      (e: unknown) => {
        if (mine !== seq.current) return;
        setError(e instanceof Error ? e : new Error(String(e)));
        setLoading(false);
      },
    );
  }, deps);
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
