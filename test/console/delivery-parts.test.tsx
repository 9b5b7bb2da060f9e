import { renderToString } from 'preact-render-to-string';
import { afterEach, describe, expect, it } from 'vitest';
import type { Delivery } from '../../console/src/deliveries.ts';
import { keepsWatching, statusLabel } from '../../console/src/deliveries.ts';
import { lang } from '../../console/src/i18n.ts';
import { UnreplayableNote } from '../../console/src/screens/deliveries.tsx';
import { RenderedPart } from '../../console/src/screens/delivery.tsx';
import { Pager } from '../../console/src/ui/pager.tsx';
import { Timeline } from '../../console/src/ui/timeline.tsx';

const before = lang.value;
afterEach(() => {
  lang.value = before;
});

describe('delivery screen parts', () => {
  it('draws the status history in order, with reasons, attempts and waits', () => {
    lang.value = 'en-US';
    const html = renderToString(
      <Timeline
        entries={[
          { status: 'queued', at: 1_700_000_000_000 },
          {
            status: 'retrying',
            at: 1_700_000_001_000,
            reason: 'UPSTREAM_TIMEOUT',
            attempt: 1,
            retry_at: 1_700_000_003_000,
          },
          { status: 'failed', at: 1_700_000_009_000, reason: 'NO_SEND_PERMISSION', code: 40323 },
        ]}
      />,
    );
    const order = ['Queued', 'Retrying', 'Failed'].map((s) => html.indexOf(`>${s}<`));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(html).toContain('attempt 1');
    expect(html).toContain('<code>NO_SEND_PERMISSION</code>');
    expect(html).toContain('(40323)');
    expect(html).toContain('until ');
    expect(html).toContain(`datetime="${new Date(1_700_000_000_000).toISOString()}"`);
  });

  it('says when there is no history', () => {
    lang.value = 'zh-CN';
    expect(renderToString(<Timeline entries={[]} />)).toContain('还没有记录状态变化');
  });

  it('names statuses in both languages', () => {
    lang.value = 'zh-CN';
    expect(statusLabel('rate_limited')).toBe('限速等待');
    lang.value = 'en-US';
    expect(statusLabel('rate_limited')).toBe('Rate limited');
    expect(statusLabel('something_new')).toBe('something_new');
  });

  it('pages only when there is more than one page', () => {
    lang.value = 'en-US';
    expect(renderToString(<Pager page={1} pageTotal={1} total={3} onPage={() => {}} />)).toBe('');
    const html = renderToString(<Pager page={2} pageTotal={3} total={70} onPage={() => {}} />);
    expect(html).toContain('Page 2 of 3, 70 in all');
    expect(html).not.toContain('disabled');
  });

  it('says the rendered message is no longer kept once retention dropped it, and not "not rendered yet"', () => {
    lang.value = 'en-US';
    const base: Delivery = {
      msg_id: 'm1',
      bot_id: 'b',
      pipe_id: 'p',
      channel_id: 'c',
      status: 'sent',
      reason: null,
      code: null,
      message: null,
      detail: null,
      attempts: 1,
      replays: 0,
      sent_at: 1_700_000_000_000,
      upstream_msg_id: null,
      retry_at: null,
      not_permissions_mention: [],
      created_at: 1_700_000_000_000,
      updated_at: 1_700_000_000_000,
      rendered: null,
    };
    const dropped = renderToString(<RenderedPart d={{ ...base, rendered_dropped_at: 1_700_600_000_000 }} />);
    expect(dropped).toContain('no longer kept');
    expect(dropped).toContain('RENDERED_RETENTION_DAYS');
    expect(renderToString(<RenderedPart d={base} />)).toContain('no longer kept');
    expect(renderToString(<RenderedPart d={{ ...base, status: 'queued', sent_at: null }} />)).toContain(
      'not been rendered yet',
    );
    expect(
      renderToString(<RenderedPart d={{ ...base, rendered: { type: 9, content: 'hello' } }} />),
    ).toContain('hello');
    // The render's warnings come with the message as sent, with their place in the template.
    const warned = renderToString(
      <RenderedPart
        d={{
          ...base,
          rendered: {
            type: 9,
            content: 'Array',
            warnings: [{ message: 'Array to string conversion', line: 3, column: 5 }],
            warning_count: 25,
          },
        }}
      />,
    );
    expect(warned).toContain('Line 3, column 5: Array to string conversion');
    expect(warned).toContain('24 more not listed.');
    expect(warned).not.toContain('Marked in the editor');
    expect(
      renderToString(<RenderedPart d={{ ...base, rendered: { type: 9, content: 'x' } }} />),
    ).not.toContain('Render warnings');
  });

  it('a bulk replay says how many matching dead messages can no longer be replayed', () => {
    lang.value = 'en-US';
    const html = renderToString(<UnreplayableNote total={7} replayable={4} />);
    expect(html).toContain('3 of them can no longer be replayed');
    expect(renderToString(<UnreplayableNote total={4} replayable={4} />)).toBe('');
  });
});

describe("a delivery page's refresh", () => {
  it('keeps asking while unsettled, and while a sent message has no record yet', () => {
    const entry = { status: 'sent', at: '2026-11-27T10:00:00.000Z' } as never;
    expect(keepsWatching({ status: 'queued', history: [] })).toBe(true);
    expect(keepsWatching({ status: 'rate_limited', history: [entry] })).toBe(true);
    // Known from its job only: the sent log writes the record (and the message as sent) soon.
    expect(keepsWatching({ status: 'sent', history: [] })).toBe(true);
    expect(keepsWatching({ status: 'sent', history: [entry] })).toBe(false);
    expect(keepsWatching({ status: 'failed', history: [] })).toBe(false);
  });
});
