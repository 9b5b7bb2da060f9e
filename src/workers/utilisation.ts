import type { UtilisationReading } from '../metrics/index.js';

/*
 * How busy this worker process's job slots are, for the autoscaling gauges (src/metrics): the
 * slots running a job now, the slot-seconds spent running jobs since start, and the share of
 * slot time that was busy over the last UTILISATION_WINDOW_S. Kept in per-second buckets, so a
 * job's start and end cost a few additions and a scrape sums at most 60 numbers.
 */

/** The window of the in-process utilisation ratio, in seconds. */
export const UTILISATION_WINDOW_S = 60;

export class SlotUtilisation {
  private busy = 0;
  /** When `busy` last changed (or the buckets were last brought up to date), ms. */
  private last: number;
  private readonly started: number;
  /** Busy slot-ms since start. */
  private total = 0;
  /** Busy slot-ms per second of the window, second s at s % windowS. */
  private readonly buckets: Float64Array;
  /** The second `last` falls in. */
  private second: number;

  constructor(
    readonly slots: number,
    private readonly windowS = UTILISATION_WINDOW_S,
    private readonly now: () => number = () => performance.timeOrigin + performance.now(),
  ) {
    this.buckets = new Float64Array(windowS);
    this.started = this.last = now();
    this.second = Math.floor(this.started / 1000);
  }

  /** Runs `fn` in one slot: the slot counts as busy from its call until it settles. */
  wrap<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return async (...args: A) => {
      this.begin();
      try {
        return await fn(...args);
      } finally {
        this.end();
      }
    };
  }

  begin(): void {
    this.advance(this.now());
    this.busy++;
  }

  end(): void {
    this.advance(this.now());
    this.busy = Math.max(0, this.busy - 1);
  }

  read(): UtilisationReading {
    const now = this.now();
    this.advance(now);
    const windowStart = Math.max(this.started, (this.second - this.windowS + 1) * 1000);
    const span = now - windowStart;
    let busyMs = 0;
    for (const ms of this.buckets) busyMs += ms;
    const ratio = span > 0 && this.slots > 0 ? busyMs / (this.slots * span) : this.busy / (this.slots || 1);
    return {
      slots: this.slots,
      busy: this.busy,
      busySeconds: this.total / 1000,
      ratio: Math.min(1, Math.max(0, ratio)),
    };
  }

  /** Adds the busy time from `last` to `now` to the buckets of the seconds it spans. */
  private advance(now: number): void {
    if (now <= this.last) return;
    this.total += this.busy * (now - this.last);
    const nowSecond = Math.floor(now / 1000);
    let t = this.last;
    // Seconds that fall out of the window are cleared; past a whole window, all of them.
    if (nowSecond - this.second >= this.windowS) {
      this.buckets.fill(0);
      this.second = nowSecond - this.windowS;
      t = Math.max(t, (nowSecond - this.windowS + 1) * 1000);
    }
    while (t < now) {
      const s = Math.floor(t / 1000);
      if (s > this.second) {
        for (let k = this.second + 1; k <= s; k++) this.buckets[k % this.windowS] = 0;
        this.second = s;
      }
      const end = Math.min(now, (s + 1) * 1000);
      this.buckets[s % this.windowS] = (this.buckets[s % this.windowS] as number) + this.busy * (end - t);
      t = end;
    }
    if (nowSecond > this.second) {
      for (let k = this.second + 1; k <= nowSecond; k++) this.buckets[k % this.windowS] = 0;
      this.second = nowSecond;
    }
    this.last = now;
  }
}
