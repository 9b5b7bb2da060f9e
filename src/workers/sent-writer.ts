import { type DeliveryIds, markSentMany, type SentOutcome } from '../domain/deliveries/records.js';
import type { Deps } from '../domain/deps.js';

/** Most records written in one round-trip. */
export const SENT_BATCH_MAX = 200;

/**
 * Group commit of `sent` records: a write starts at once when none is running; records that
 * arrive meanwhile go together in the next one. Each caller's promise settles when its own
 * record is stored, so a job completes only after its outcome is durable. Under load this
 * turns N single writes into N / batch round-trips (the store serialises writes); when idle it
 * adds no wait.
 */
export class SentWriter {
  private pending: Array<{ ids: DeliveryIds; outcome: SentOutcome; done: (err?: unknown) => void }> = [];
  private running = false;

  constructor(private readonly deps: Deps) {}

  write(ids: DeliveryIds, outcome: SentOutcome): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ ids, outcome, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, SENT_BATCH_MAX);
      try {
        await markSentMany(this.deps, batch);
        for (const b of batch) b.done();
      } catch (err) {
        for (const b of batch) b.done(err);
      }
    }
    this.running = false;
  }
}
