import { afterEach, describe, expect, it } from 'vitest';
import {
  fieldText,
  type GroupingForm,
  groupingBody,
  groupingForm,
  groupingText,
  t,
} from '../../console/src/grouping-form.ts';
import { LANGS, lang } from '../../console/src/i18n.ts';
import { PipeGroupingPanel } from '../../console/src/ui/pipe-grouping.tsx';
import { html, textOf } from './html.ts';

const before = lang.value;
afterEach(() => {
  lang.value = before;
});

describe('the grouping form', () => {
  it("starts from the pipe's grouping, and gives it back unchanged", () => {
    const g = { key: '{{ data.groupKey }}', mode: 'throttle' as const, window_s: 300, limit: 5 };
    const f = groupingForm(g);
    expect(f).toEqual({ mode: 'throttle', key: '{{ data.groupKey }}', windowS: '300', limit: '5' });
    expect(groupingBody('p1', f)).toEqual({ ok: true, body: { id: 'p1', grouping: g } });
  });

  it('offers a starting point for a pipe without grouping, and none removes it', () => {
    const f = groupingForm(null);
    expect(f.mode).toBe('none');
    expect(groupingBody('p1', f)).toEqual({ ok: true, body: { id: 'p1', grouping: null } });
    // Picking a mode sends the suggested key and window; limit only for throttle.
    expect(groupingBody('p1', { ...f, mode: 'update' })).toEqual({
      ok: true,
      body: { id: 'p1', grouping: { key: '{{ data.groupKey }}', mode: 'update', window_s: 60, limit: null } },
    });
  });

  it('refuses what the server would, naming the field', () => {
    const f: GroupingForm = { ...groupingForm(null), mode: 'throttle' };
    const field = (x: typeof f) => {
      const r = groupingBody('p1', x);
      return r.ok ? null : r.field;
    };
    expect(field({ ...f, key: '  ' })).toBe('key');
    expect(field({ ...f, key: 'k'.repeat(1001) })).toBe('key');
    expect(field({ ...f, windowS: '0' })).toBe('window');
    expect(field({ ...f, windowS: '86401' })).toBe('window');
    expect(field({ ...f, windowS: '1.5' })).toBe('window');
    expect(field({ ...f, windowS: '86400' })).toBeNull();
    expect(field({ ...f, limit: '0' })).toBe('limit');
    expect(field({ ...f, limit: '1001' })).toBe('limit');
    // A digest has no limit to check.
    expect(field({ ...f, mode: 'digest', limit: 'x' })).toBeNull();
  });

  it('says a grouping in a line for the details', () => {
    lang.value = 'en-US';
    expect(groupingText(null)).toBe('None (each message sent on its own)');
    expect(groupingText({ key: '{{ data.groupKey }}', mode: 'digest', window_s: 60, limit: null })).toBe(
      'Digest by {{ data.groupKey }}, 60 s windows',
    );
    expect(groupingText({ key: 'k', mode: 'throttle', window_s: 300, limit: 5 })).toBe(
      'Throttle by k, 300 s windows, 5 per window',
    );
  });

  it('says each refusal in both languages', () => {
    for (const l of LANGS) {
      lang.value = l;
      const texts = (['key', 'window', 'limit'] as const).map(fieldText);
      expect(new Set(texts).size).toBe(3);
    }
  });
});

describe('the grouping panel', () => {
  it('shows the key and window for a grouped pipe, and the limit only when throttling', () => {
    lang.value = 'en-US';
    const pipe = {
      id: 'p1',
      updated_at: 1,
      grouping: { key: '{{ data.groupKey }}', mode: 'update' as const, window_s: 86400, limit: null },
    };
    const markup = html(<PipeGroupingPanel pipe={pipe} onSaved={() => undefined} />);
    expect(textOf(markup)).toContain(t('heading'));
    expect(markup).toContain('value="86400"');
    expect(markup).toContain('<option selected value="update"');
    expect(textOf(markup)).not.toContain('Messages per window sent on their own');
    const throttled = html(
      <PipeGroupingPanel
        pipe={{ ...pipe, grouping: { ...pipe.grouping, mode: 'throttle', limit: 7 } }}
        onSaved={() => undefined}
      />,
    );
    expect(textOf(throttled)).toContain('Messages per window sent on their own');
    expect(throttled).toContain('value="7"');
    const none = html(
      <PipeGroupingPanel pipe={{ id: 'p2', updated_at: 1, grouping: null }} onSaved={() => undefined} />,
    );
    expect(none).not.toContain('Group key');
  });
});
