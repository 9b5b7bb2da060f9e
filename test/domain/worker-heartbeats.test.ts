import { describe, expect, it } from 'vitest';
import { splitHeartbeats, WORKER_SEEN_MS } from '../../src/domain/worker-heartbeats.js';

/** Which heartbeats the overview shows, without Redis. */
describe('worker heartbeats', () => {
  const now = 1_000_000;
  const beat = (id: string, ago: number, started = 0) =>
    JSON.stringify({ id, host: 'h', pid: 1, concurrency: 4, started_at: started, last_seen_at: now - ago });

  it('shows workers heard from within three heartbeats, oldest start first; the rest are gone', () => {
    const { seen, gone } = splitHeartbeats(
      {
        late: beat('late', 1_000, 50),
        early: beat('early', 0, 10),
        edge: beat('edge', WORKER_SEEN_MS, 20),
        silent: beat('silent', WORKER_SEEN_MS + 1),
        broken: '{not json',
        odd: JSON.stringify({ id: 'odd' }),
      },
      now,
    );
    expect(seen.map((w) => w.id)).toEqual(['early', 'edge', 'late']);
    expect(seen[0]).toEqual({
      id: 'early',
      host: 'h',
      pid: 1,
      concurrency: 4,
      started_at: 10,
      last_seen_at: now,
    });
    expect(gone.sort()).toEqual(['broken', 'odd', 'silent']);
    expect(WORKER_SEEN_MS).toBe(15_000);
  });
});
