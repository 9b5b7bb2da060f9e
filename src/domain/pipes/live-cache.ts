import { DependencyError } from '../../errors/index.js';

/**
 * An in-process read-through cache whose entries are dropped by change notifications
 * (Redis pub/sub) rather than by time, so that the hot path reads no database.
 *
 * Correctness rests on three rules:
 * - Entries are used only while the notification subscription is live. When the subscriber
 *   connection drops, notifications may be lost, so the cache is cleared and bypassed until
 *   the subscription is confirmed again.
 * - A load that started before an invalidation must not store what it read (it may predate
 *   the change): every invalidation bumps an epoch, and a load stores only if the epoch it
 *   started in is still current.
 * - Entries older than `freshMs` are reloaded (a bound on staleness if a notification was ever
 *   missed), but when the database is unreachable the old entry is still served: pipes keep
 *   working through a database outage, with changes applied once it is back.
 */
export interface LiveCacheOptions<V> {
  /** Reads the current value; null when there is none (cached as well). */
  readonly load: (key: string) => Promise<V | null>;
  /** Most entries kept; the oldest are dropped first. */
  readonly maxEntries: number;
  /** Age after which an entry is reloaded, in ms. */
  readonly freshMs: number;
  readonly now?: () => number;
}

interface Entry<V> {
  readonly value: V | null;
  readonly loadedAt: number;
}

export class LiveCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly loading = new Map<string, { epoch: number; promise: Promise<V | null> }>();
  private epoch = 0;
  private live = false;
  private readonly now: () => number;

  constructor(private readonly options: LiveCacheOptions<V>) {
    this.now = options.now ?? Date.now;
  }

  /** Whether entries are being kept (the subscription is confirmed). */
  get isLive(): boolean {
    return this.live;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Subscription confirmed: start keeping entries (from empty). */
  goLive(): void {
    this.clear();
    this.live = true;
  }

  /** Subscription lost: drop everything and read through until it is back. */
  goOffline(): void {
    this.live = false;
    this.clear();
  }

  invalidate(key: string): void {
    this.epoch++;
    this.entries.delete(key);
    this.loading.delete(key);
  }

  clear(): void {
    this.epoch++;
    this.entries.clear();
    this.loading.clear();
  }

  /**
   * The value, when a fresh entry is kept (the hot path answers without a promise); undefined
   * when get() has to load it.
   */
  peek(key: string): V | null | undefined {
    const entry = this.live ? this.entries.get(key) : undefined;
    if (entry && this.now() - entry.loadedAt < this.options.freshMs) return entry.value;
    return undefined;
  }

  async get(key: string): Promise<V | null> {
    const entry = this.live ? this.entries.get(key) : undefined;
    if (entry && this.now() - entry.loadedAt < this.options.freshMs) return entry.value;
    try {
      return await this.load(key);
    } catch (err) {
      // Database down: a known (if old) answer beats a 503. Redis being down is not this case.
      if (entry && err instanceof DependencyError && err.dependency === 'database') return entry.value;
      throw err;
    }
  }

  /** One load per key at a time, shared by concurrent callers of the same epoch. */
  private load(key: string): Promise<V | null> {
    const running = this.loading.get(key);
    if (running && running.epoch === this.epoch) return running.promise;
    const epoch = this.epoch;
    const promise = this.options.load(key).then(
      (value) => {
        if (this.loading.get(key)?.promise === promise) this.loading.delete(key);
        if (this.live && this.epoch === epoch) this.store(key, value);
        return value;
      },
      (err: unknown) => {
        if (this.loading.get(key)?.promise === promise) this.loading.delete(key);
        throw err;
      },
    );
    this.loading.set(key, { epoch, promise });
    return promise;
  }

  private store(key: string, value: V | null): void {
    this.entries.delete(key);
    this.entries.set(key, { value, loadedAt: this.now() });
    if (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}
