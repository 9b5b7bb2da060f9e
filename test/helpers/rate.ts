/**
 * The most a token bucket of `capacity` tokens refilled at `perSecond` lets through, checked on
 * recorded send times: between any two sends (sorted times t_i <= t_j), the sends from i to j
 * number at most capacity + perSecond x (t_j - t_i) + perSecond x slackMs. Every window length
 * is checked, not one fixed window. Answers the worst window over that bound, or null.
 */
export function overBucket(
  times: readonly number[],
  limit: { readonly capacity: number; readonly perSecond: number },
  slackMs = 0,
): { sends: number; withinMs: number; allowed: number } | null {
  const t = [...times].sort((x, y) => x - y);
  let worst: { sends: number; withinMs: number; allowed: number } | null = null;
  for (let i = 0; i < t.length; i++) {
    for (let j = i; j < t.length; j++) {
      const withinMs = (t[j] as number) - (t[i] as number);
      const allowed = limit.capacity + (limit.perSecond * (withinMs + slackMs)) / 1000;
      const sends = j - i + 1;
      if (sends > allowed && (!worst || sends - allowed > worst.sends - worst.allowed)) {
        worst = { sends, withinMs, allowed: Math.floor(allowed) };
      }
    }
  }
  return worst;
}
