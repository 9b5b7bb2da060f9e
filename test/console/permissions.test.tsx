import { renderToString } from 'preact-render-to-string';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Lang, lang } from '../../console/src/i18n.ts';
import {
  describeMask,
  hasBits,
  overwriteState,
  PERMISSION_BITS,
  setOverwriteState,
  unnamedBits,
  withBits,
} from '../../console/src/permissions.ts';
import { OverwriteChoices, PermissionChecks } from '../../console/src/ui/permission-checks.tsx';

let saved: Lang;
beforeEach(() => {
  saved = lang.value;
  lang.value = 'en-US';
});
afterEach(() => {
  lang.value = saved;
});

describe('console permission bits', () => {
  it('names the bits the platform documents, with the server values', () => {
    expect(PERMISSION_BITS.map((b) => [b.key, b.value, 2 ** b.bit])).toEqual([
      ['administrator', 1, 1],
      ['view_channels', 2048, 2048],
      ['send_messages', 4096, 4096],
      ['mention_everyone', 131072, 131072],
    ]);
    for (const b of PERMISSION_BITS) {
      expect(b.label['zh-CN']).not.toBe('');
      expect(b.label['en-US']).not.toBe('');
    }
  });

  it('ticks and clears one bit, keeping every other bit (also above bit 31)', () => {
    const high = 2 ** 40 + 2 ** 31;
    const mask = high + 2048;
    expect(withBits(mask, 4096, true)).toBe(high + 2048 + 4096);
    expect(withBits(mask, 2048, false)).toBe(high);
    expect(withBits(mask, 2048, true)).toBe(mask);
    expect(hasBits(mask, 2048)).toBe(true);
    expect(hasBits(mask, 4096)).toBe(false);
    expect(unnamedBits(mask)).toBe(high);
    expect(unnamedBits(Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER - 1 - 2048 - 4096 - 131072);
  });

  it('reads and sets an overwrite bit as inherit, allow or deny', () => {
    const o = { allow: 4096, deny: 2048 + 131072 };
    expect(overwriteState(o, 4096)).toBe('allow');
    expect(overwriteState(o, 2048)).toBe('deny');
    expect(overwriteState(o, 1)).toBe('inherit');
    expect(setOverwriteState(o, 2048, 'allow')).toEqual({ allow: 4096 + 2048, deny: 131072 });
    expect(setOverwriteState(o, 4096, 'deny')).toEqual({ allow: 0, deny: 2048 + 131072 + 4096 });
    expect(setOverwriteState(o, 131072, 'inherit')).toEqual({ allow: 4096, deny: 2048 });
    const withHigh = { allow: 2 ** 45, deny: 2 ** 33 };
    expect(setOverwriteState(withHigh, 4096, 'allow')).toEqual({ allow: 2 ** 45 + 4096, deny: 2 ** 33 });
  });

  it('describes a mask in words', () => {
    expect(describeMask(2048 + 4096, 'en-US')).toBe('View channels, Send messages');
    expect(describeMask(2048 + 4096, 'zh-CN')).toBe('查看频道、发送消息');
    expect(describeMask(0, 'en-US')).toBe('none');
    expect(describeMask(Number.MAX_SAFE_INTEGER, 'en-US')).toBe('all permissions');
    expect(describeMask(4096 + 2 ** 20, 'en-US')).toBe(`Send messages, other bits ${2 ** 20}`);
  });

  it('draws a role mask as named checkboxes, ticked for the bits it holds', () => {
    const html = renderToString(<PermissionChecks legend="Perms" mask={2048 + 4096} onChange={() => {}} />);
    expect(html).toContain('<legend>Perms</legend>');
    const boxes = [...html.matchAll(/<input type="checkbox"( checked)?\/>\s*<span>([^<]+)/g)].map((m) => [
      m[2]!.trim(),
      m[1] !== undefined,
    ]);
    expect(boxes).toEqual([
      ['Administrator', false],
      ['View channels', true],
      ['Send messages', true],
      ['Mention everyone', false],
    ]);
    expect(html).not.toContain('unnamed bits');
    expect(renderToString(<PermissionChecks legend="P" mask={2 ** 30} onChange={() => {}} />)).toContain(
      `unnamed bits ${2 ** 30}`,
    );
  });

  it('draws an overwrite as one inherit/allow/deny choice per bit', () => {
    const html = renderToString(<OverwriteChoices masks={{ allow: 4096, deny: 2048 }} onChange={() => {}} />);
    expect(html).toContain('ow-allow');
    expect(html).toContain('ow-deny');
    expect(html.match(/<select/g)).toHaveLength(PERMISSION_BITS.length);
  });
});
