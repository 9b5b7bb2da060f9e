import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createPreviewRunner,
  PREVIEW_DELAY_MS,
  type PreviewOutcome,
} from '../../console/src/studio/preview-runner.ts';

/** A render whose answers the test releases by hand, in any order. */
function fakeRender() {
  const calls: {
    request: string;
    signal: AbortSignal;
    resolve(v: string): void;
    reject(e: unknown): void;
  }[] = [];
  const render = (request: string, signal: AbortSignal) =>
    new Promise<string>((resolve, reject) => {
      calls.push({ request, signal, resolve, reject });
    });
  return { calls, render };
}

function setup() {
  const { calls, render } = fakeRender();
  const outcomes: PreviewOutcome<string, string>[] = [];
  const busy: boolean[] = [];
  const runner = createPreviewRunner<string, string>({
    render,
    onOutcome: (o) => outcomes.push(o),
    onBusy: (b) => busy.push(b),
  });
  return { calls, outcomes, busy, runner };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the preview runner', () => {
  it('renders once, the last text, after the typing pauses for the delay', async () => {
    const { calls, outcomes, runner } = setup();
    runner.schedule('a');
    vi.advanceTimersByTime(100);
    runner.schedule('ab');
    vi.advanceTimersByTime(PREVIEW_DELAY_MS - 1);
    runner.schedule('abc');
    vi.advanceTimersByTime(PREVIEW_DELAY_MS - 1);
    expect(calls).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(calls.map((c) => c.request)).toEqual(['abc']);
    calls[0]!.resolve('<abc>');
    await vi.runAllTimersAsync();
    expect(outcomes).toEqual([{ ok: true, request: 'abc', result: '<abc>' }]);
  });

  it('keeps only the newest answer: an older one arriving last is dropped', async () => {
    const { calls, outcomes, runner } = setup();
    runner.schedule('old');
    vi.advanceTimersByTime(PREVIEW_DELAY_MS);
    runner.schedule('new');
    vi.advanceTimersByTime(PREVIEW_DELAY_MS);
    expect(calls.map((c) => c.request)).toEqual(['old', 'new']);
    // The older request was aborted when the newer one was sent.
    expect(calls[0]!.signal.aborted).toBe(true);
    expect(calls[1]!.signal.aborted).toBe(false);
    calls[1]!.resolve('<new>');
    await vi.runAllTimersAsync();
    calls[0]!.resolve('<old>');
    await vi.runAllTimersAsync();
    expect(outcomes).toEqual([{ ok: true, request: 'new', result: '<new>' }]);
  });

  it('drops an older error too, and reports the newest error', async () => {
    const { calls, outcomes, runner } = setup();
    runner.now('one');
    runner.now('two');
    calls[0]!.reject(new Error('late'));
    calls[1]!.reject(new Error('bad template'));
    await vi.runAllTimersAsync();
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ ok: false, request: 'two' });
    expect((outcomes[0] as { error: Error }).error.message).toBe('bad template');
  });

  it('shows an answer while a newer change is still waiting out the delay', async () => {
    const { calls, outcomes, runner } = setup();
    runner.now('first');
    runner.schedule('second');
    calls[0]!.resolve('<first>');
    await Promise.resolve();
    await Promise.resolve();
    expect(outcomes.map((o) => o.request)).toEqual(['first']);
    vi.advanceTimersByTime(PREVIEW_DELAY_MS);
    expect(calls.map((c) => c.request)).toEqual(['first', 'second']);
  });

  it('now() sends at once and cancels a waiting change', async () => {
    const { calls, runner } = setup();
    runner.schedule('typed');
    runner.now('pressed');
    vi.advanceTimersByTime(PREVIEW_DELAY_MS * 4);
    expect(calls.map((c) => c.request)).toEqual(['pressed']);
  });

  it('reports busy while waiting or rendering, idle after the answer', async () => {
    const { calls, busy, runner } = setup();
    runner.schedule('x');
    expect(busy.at(-1)).toBe(true);
    vi.advanceTimersByTime(PREVIEW_DELAY_MS);
    expect(busy.at(-1)).toBe(true);
    calls[0]!.resolve('<x>');
    await vi.runAllTimersAsync();
    expect(busy.at(-1)).toBe(false);
  });

  it('after dispose, sends nothing and reports nothing', async () => {
    const { calls, outcomes, runner } = setup();
    runner.now('in flight');
    runner.schedule('waiting');
    runner.dispose();
    expect(calls[0]!.signal.aborted).toBe(true);
    calls[0]!.resolve('<late>');
    await vi.runAllTimersAsync();
    runner.schedule('after');
    await vi.runAllTimersAsync();
    expect(calls).toHaveLength(1);
    expect(outcomes).toEqual([]);
  });

  it('reports a render that throws at once as that request’s error', async () => {
    const outcomes: PreviewOutcome<string, string>[] = [];
    const runner = createPreviewRunner<string, string>({
      render: () => {
        throw new Error('no');
      },
      onOutcome: (o) => outcomes.push(o),
    });
    runner.now('x');
    await vi.runAllTimersAsync();
    expect(outcomes).toMatchObject([{ ok: false, request: 'x' }]);
  });
});
