import { renderToString } from 'preact-render-to-string';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Lang, lang } from '../../console/src/i18n.ts';
import type { OverviewData } from '../../console/src/ops-types.ts';
import { agoParts, barSegments, minuteSeries } from '../../console/src/overview-model.ts';
import { OverviewBody } from '../../console/src/screens/overview.tsx';

let saved: Lang;
beforeEach(() => {
  saved = lang.value;
  lang.value = 'en-US';
});
afterEach(() => {
  lang.value = saved;
});

const MIN = 60_000;
const now = 1_700_000_000_000 - (1_700_000_000_000 % MIN) + 30_000; // half a minute into a minute
const thisMinute = now - 30_000;

describe('overview model', () => {
  it('gives one entry per minute of the window, ending now, with missing minutes as zero', () => {
    const s = minuteSeries(
      [
        { at: thisMinute - 2 * MIN, sent: 3, failed: 1, retried: 0 },
        { at: thisMinute, sent: 5, failed: 0, retried: 2 },
        { at: thisMinute - 40 * MIN, sent: 99, failed: 0, retried: 0 },
      ],
      900,
      now,
    );
    expect(s).toHaveLength(15);
    expect(s[14]).toEqual({ at: thisMinute, sent: 5, failed: 0, retried: 2 });
    expect(s[12]).toEqual({ at: thisMinute - 2 * MIN, sent: 3, failed: 1, retried: 0 });
    expect(s[13]).toEqual({ at: thisMinute - MIN, sent: 0, failed: 0, retried: 0 });
    expect(s[0]!.at).toBe(thisMinute - 14 * MIN);
    expect(s.reduce((n, m) => n + m.sent, 0)).toBe(8);
  });

  it("follows the server's latest minute when its clock is ahead", () => {
    const s = minuteSeries([{ at: thisMinute + MIN, sent: 1, failed: 0, retried: 0 }], 300, now);
    expect(s).toHaveLength(5);
    expect(s[4]!.at).toBe(thisMinute + MIN);
  });

  it('stacks each bar, the busiest minute filling the chart', () => {
    const bars = barSegments(
      [
        { at: 0, sent: 2, retried: 1, failed: 1 },
        { at: 1, sent: 2, retried: 0, failed: 0 },
        { at: 2, sent: 0, retried: 0, failed: 0 },
      ],
      100,
    );
    expect(bars[0]).toEqual([
      { kind: 'sent', y: 0, height: 50 },
      { kind: 'retried', y: 50, height: 25 },
      { kind: 'failed', y: 75, height: 25 },
    ]);
    expect(bars[1]).toEqual([{ kind: 'sent', y: 0, height: 50 }]);
    expect(bars[2]).toEqual([]);
  });

  it('says how long ago in seconds, minutes or hours', () => {
    expect(agoParts(now - 4_000, now)).toEqual({ unit: 's', n: 4 });
    expect(agoParts(now + 4_000, now)).toEqual({ unit: 's', n: 0 });
    expect(agoParts(now - 5 * MIN, now)).toEqual({ unit: 'm', n: 5 });
    expect(agoParts(now - 3 * 3600_000, now)).toEqual({ unit: 'h', n: 3 });
  });
});

const data: OverviewData = {
  services: { redis: { ok: true, latency_ms: 1 }, store: { ok: false, latency_ms: null } },
  queue: { waiting: 3, delayed: 1, active: 2, failed: 4 },
  recent: {
    window_s: 900,
    sent: 12,
    failed: 1,
    retried: 2,
    per_minute: [{ at: thisMinute, sent: 12, failed: 1, retried: 2 }],
  },
  dead_by_reason: [{ reason: 'NO_SEND_PERMISSION', count: 7 }],
  workers: [
    {
      id: 'w1',
      host: 'box-1',
      pid: 4242,
      concurrency: 8,
      started_at: now - 3600_000,
      last_seen_at: now - 3000,
    },
  ],
};

describe('overview screen', () => {
  it('draws services, queue, recent counts with a bar per minute, dead letters and workers', () => {
    const html = renderToString(<OverviewBody data={data} now={now} />);
    expect(html).toContain('>up<');
    expect(html).toContain('>down<');
    expect(html).toContain('Last 15 minutes');
    // 15 minutes, one background bar each, and the one busy minute's three segments.
    expect(html.match(/class="bar-bg"/g)).toHaveLength(15);
    expect(html).toContain('class="bar-sent"');
    expect(html).toContain('class="bar-failed"');
    expect(html).toContain('12 sent, 2 retried, 1 failed in the last 15 minutes');
    expect(html).toContain('href="/console/deliveries?status=failed&amp;reason=NO_SEND_PERMISSION"');
    expect(html).toContain('box-1');
    expect(html).toContain('4242');
    expect(html).toContain('3 s ago');
    expect(html).not.toContain('style=');
  });

  it('says when no worker is running and there are no dead letters', () => {
    const html = renderToString(
      <OverviewBody data={{ ...data, workers: [], dead_by_reason: [] }} now={now} />,
    );
    expect(html).toContain('No worker process seen');
    expect(html).toContain('No dead letters.');
  });

  it('speaks Chinese too', () => {
    lang.value = 'zh-CN';
    const html = renderToString(<OverviewBody data={data} now={now} />);
    expect(html).toContain('最近 15 分钟');
    expect(html).toContain('死信（按原因）');
  });
});
