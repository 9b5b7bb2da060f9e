import { describe, expect, it } from 'vitest';
import { REASON } from '../../../src/domain/deliveries/reasons.js';
import { deliveryEvent, describeFailure, MAX_RECORDED_TEXT } from '../../../src/domain/deliveries/records.js';
import { DeliveryError, HeraldError } from '../../../src/errors/index.js';
import { compileTemplate } from '../../../src/render/index.js';

/** History entries as records.ts writes them, without a store. */
describe('delivery history entries', () => {
  it('carries the stage and time, and only the fields that are set', () => {
    expect(deliveryEvent('replayed', 5)).toEqual({ status: 'replayed', at: 5 });
    expect(
      deliveryEvent('retrying', 5, { reason: 'RELAY_UNAVAILABLE', code: 50310, retry_at: 9, attempt: 1 }),
    ).toEqual({
      status: 'retrying',
      at: 5,
      reason: 'RELAY_UNAVAILABLE',
      code: 50310,
      retry_at: 9,
      attempt: 1,
    });
    const failed = deliveryEvent('failed', 7, { reason: null, code: null, retry_at: null, attempt: 0 });
    expect(failed).toEqual({ status: 'failed', at: 7, attempt: 0 });
    expect(Object.keys(failed)).toEqual(['status', 'at', 'attempt']);
  });
});

describe('a failure as recorded', () => {
  const renderError = (tz: string): HeraldError => {
    try {
      compileTemplate("{{ 'now'|date('Y', data.tz) }}").render({ tz }, {});
    } catch (err) {
      if (err instanceof HeraldError) return err;
    }
    throw new Error('no render error');
  };

  it("cuts a sender's megabyte quoted by a render error, in the message and in its parameter", () => {
    const err = renderError(`${'X'.repeat(1_000_000)}`);
    expect(err.message.length).toBeGreaterThan(1_000_000);
    const f = describeFailure(err);
    expect(JSON.stringify(f).length).toBeLessThan(4 * MAX_RECORDED_TEXT);
    expect(f.message).toHaveLength(MAX_RECORDED_TEXT);
    expect(f.message.startsWith(err.message.slice(0, MAX_RECORDED_TEXT - 1))).toBe(true);
    expect(f.message.endsWith('…')).toBe(true);
    expect(String(f.params?.detail)).toHaveLength(MAX_RECORDED_TEXT);
    // What is not long is kept as it was: the reason, the code, the place.
    expect(f).toMatchObject({ reason: 'TEMPLATE_RENDER', code: err.code, params: { line: 1 } });
  });

  it('keeps a short failure whole, and never cuts between the halves of a surrogate pair', () => {
    const short = renderError('Mars/Olympus');
    expect(describeFailure(short).message).toBe(short.message);
    expect(describeFailure(short).params).toEqual(short.params);
    // The cut falls where a pair would be split: the whole pair goes.
    const detail = `${'a'.repeat(MAX_RECORDED_TEXT - 2)}😀${'b'.repeat(50)}`;
    const cut = String(
      describeFailure(new DeliveryError(REASON.UPSTREAM_UNAVAILABLE, { detail })).params?.detail,
    );
    expect(cut).toBe(`${'a'.repeat(MAX_RECORDED_TEXT - 2)}…`);
    expect(/[\ud800-\udbff]$/.test(cut.slice(0, -1))).toBe(false);
  });
});
