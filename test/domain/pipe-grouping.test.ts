import { describe, expect, it } from 'vitest';
import {
  checkGrouping,
  compareSeq,
  digestMsgId,
  groupHash,
  groupKeyOf,
  MAX_GROUP_KEY_LENGTH,
  updateDecision,
  windowEnd,
} from '../../src/domain/pipes/grouping.js';
import { ValidationError } from '../../src/errors/index.js';

describe('grouping settings', () => {
  it('take limit with throttle only, and a key template that compiles', () => {
    const ok = { key: '{{ data.groupKey }}', mode: 'throttle' as const, window_s: 60, limit: 3 };
    expect(checkGrouping(ok)).toEqual(ok);
    expect(checkGrouping(null)).toBeNull();
    const bad = [
      { ...ok, limit: null },
      { ...ok, mode: 'digest' as const },
      { ...ok, mode: 'update' as const },
      { ...ok, key: '{{ data.groupKey' },
      { ...ok, key: '{% if %}' },
    ];
    for (const g of bad) {
      const err = (() => {
        try {
          checkGrouping(g);
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(err, JSON.stringify(g)).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).field).toBe('grouping');
    }
  });
});

describe('group keys and ids', () => {
  it('an empty key is no group; a long one is cut', () => {
    expect(groupKeyOf('  \n ')).toBeNull();
    expect(groupKeyOf(' a ')).toBe('a');
    expect([...(groupKeyOf('鍵'.repeat(300)) as string)]).toHaveLength(MAX_GROUP_KEY_LENGTH);
  });

  it('a group is named per pipe; a digest id is the same for the same window and a UUID', () => {
    expect(groupHash('1', 'k')).not.toBe(groupHash('2', 'k'));
    expect(groupHash('1', 'k')).toHaveLength(32);
    const id = digestMsgId(groupHash('1', 'k'), 3, 1_700_000_000_000);
    expect(id).toBe(digestMsgId(groupHash('1', 'k'), 3, 1_700_000_000_000));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // Another window, or the same number opened at another time (a counter lost), another id.
    expect(digestMsgId(groupHash('1', 'k'), 4, 1_700_000_000_000)).not.toBe(id);
    expect(digestMsgId(groupHash('1', 'k'), 3, 1_700_000_000_001)).not.toBe(id);
    expect(windowEnd(1_000, 60)).toBe(61_000);
  });
});

describe('update in place', () => {
  const carrier = { msg_id: 'b', upstream_msg_id: 'up-b', applied: { at: 100, id: 'b' } };

  it('orders by acceptance, then msg_id', () => {
    expect(compareSeq({ at: 1, id: 'z' }, { at: 2, id: 'a' })).toBe(-1);
    expect(compareSeq({ at: 2, id: 'b' }, { at: 2, id: 'a' })).toBe(1);
    expect(compareSeq({ at: 2, id: 'a' }, { at: 2, id: 'a' })).toBe(0);
  });

  it('posts the first, edits for a newer one, folds an older or already applied one', () => {
    expect(updateDecision(null, { at: 1, id: 'a' })).toBe('post');
    expect(updateDecision(carrier, { at: 101, id: 'c' })).toBe('edit');
    expect(updateDecision(carrier, { at: 100, id: 'c' })).toBe('edit');
    expect(updateDecision(carrier, { at: 99, id: 'c' })).toBe('stale');
    expect(updateDecision(carrier, { at: 100, id: 'a' })).toBe('stale');
    expect(updateDecision(carrier, { at: 100, id: 'b' })).toBe('carrier');
    // A re-run of an edit already applied is folded, not applied twice.
    const applied = { ...carrier, applied: { at: 150, id: 'c' } };
    expect(updateDecision(applied, { at: 150, id: 'c' })).toBe('stale');
  });
});
