import type { MinuteCounts } from './ops-types.ts';

/*
 * Pure helpers of the overview screen: the per-minute series the bar chart draws, and how long
 * ago a worker was seen.
 */

const MINUTE_MS = 60_000;

/**
 * One entry per minute of the window, oldest first, ending at the current minute (or at the
 * latest minute the server reports, if its clock is ahead). Minutes the server left out count
 * zero; entries outside the window are dropped.
 */
export function minuteSeries(
  perMinute: readonly MinuteCounts[],
  windowS: number,
  nowMs: number,
): MinuteCounts[] {
  const n = Math.max(1, Math.round(windowS / 60));
  const latest = perMinute.reduce((m, p) => Math.max(m, Math.floor(p.at / MINUTE_MS) * MINUTE_MS), 0);
  const end = Math.max(Math.floor(nowMs / MINUTE_MS) * MINUTE_MS, latest);
  const byMinute = new Map<number, MinuteCounts>();
  for (const p of perMinute) {
    const at = Math.floor(p.at / MINUTE_MS) * MINUTE_MS;
    const prev = byMinute.get(at);
    byMinute.set(at, {
      at,
      sent: (prev?.sent ?? 0) + p.sent,
      failed: (prev?.failed ?? 0) + p.failed,
      retried: (prev?.retried ?? 0) + p.retried,
    });
  }
  const out: MinuteCounts[] = [];
  for (let i = n - 1; i >= 0; i--) {
    const at = end - i * MINUTE_MS;
    out.push(byMinute.get(at) ?? { at, sent: 0, failed: 0, retried: 0 });
  }
  return out;
}

export interface BarSegment {
  kind: 'sent' | 'retried' | 'failed';
  /** From the chart's bottom, in chart units (0 to height). */
  y: number;
  height: number;
}

/**
 * The stacked segments of each minute's bar (sent at the bottom, then retried, then failed),
 * scaled so the busiest minute fills `height`. Empty segments are left out.
 */
export function barSegments(series: readonly MinuteCounts[], height: number): BarSegment[][] {
  const max = Math.max(1, ...series.map((m) => m.sent + m.retried + m.failed));
  return series.map((m) => {
    const segs: BarSegment[] = [];
    let y = 0;
    for (const kind of ['sent', 'retried', 'failed'] as const) {
      const h = (m[kind] / max) * height;
      if (h > 0) segs.push({ kind, y, height: h });
      y += h;
    }
    return segs;
  });
}

/** Seconds (or minutes, hours) between `thenMs` and `nowMs`, rounded down; 0 for the future. */
export function agoParts(thenMs: number, nowMs: number): { unit: 's' | 'm' | 'h'; n: number } {
  const s = Math.max(0, Math.floor((nowMs - thenMs) / 1000));
  if (s < 120) return { unit: 's', n: s };
  if (s < 7200) return { unit: 'm', n: Math.floor(s / 60) };
  return { unit: 'h', n: Math.floor(s / 3600) };
}
