import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Lang, lang } from '../../console/src/i18n.ts';
import {
  DEFAULT_TEMPLATE_FILTERS,
  msgtypeLabel,
  reviewStatusBadge,
  reviewStatusLabel,
  SORTS,
  templateFiltersFromQuery,
  templateListQuery,
  templatesPath,
  timeMs,
  usageSummary,
} from '../../console/src/templates-model.ts';
import { TEMPLATE_SORT_FIELDS } from '../../src/store/templates.ts';

let saved: Lang;
beforeEach(() => {
  saved = lang.value;
  lang.value = 'en-US';
});
afterEach(() => {
  lang.value = saved;
});

const q = (s: string) => new URLSearchParams(s);

describe('template list filters', () => {
  it('opens on the most recently changed first, every bot, status and ban', () => {
    expect(templateFiltersFromQuery(q(''))).toEqual(DEFAULT_TEMPLATE_FILTERS);
    expect(templatesPath(DEFAULT_TEMPLATE_FILTERS)).toBe('templates');
  });

  it('round-trips a list state through the console URL', () => {
    const f = {
      q: 'push',
      bot_id: '17',
      status: '1' as const,
      banned: 'false' as const,
      sort: 'title' as const,
      page: 3,
    };
    const path = templatesPath(f);
    expect(path).toBe('templates?q=push&bot_id=17&status=1&banned=false&sort=title&page=3');
    expect(templateFiltersFromQuery(q(path.slice('templates?'.length)))).toEqual(f);
  });

  it('drops what the API would refuse from a hand-edited URL', () => {
    expect(
      templateFiltersFromQuery(q('status=9&banned=yes&sort=-password&page=-2&bot_id=' + 'x'.repeat(65))),
    ).toEqual(DEFAULT_TEMPLATE_FILTERS);
    expect(templateFiltersFromQuery(q(`q=${'a'.repeat(100)}`)).q).toHaveLength(64);
  });

  it('sorts only by fields the server sorts on', () => {
    const fields = Object.keys(TEMPLATE_SORT_FIELDS);
    for (const s of SORTS) expect(fields).toContain(s.value.replace(/^-/, ''));
  });

  it('asks the API with the filters; a bot session never sends a bot_id', () => {
    const f = {
      ...DEFAULT_TEMPLATE_FILTERS,
      q: '  deploy ',
      bot_id: '17',
      status: '2' as const,
      banned: 'true' as const,
      page: 2,
    };
    expect(templateListQuery(f, 'operator', 20)).toEqual({
      page: 2,
      page_size: 20,
      sort: '-updated_at',
      q: 'deploy',
      bot_id: '17',
      status: 2,
      banned: 'true',
    });
    expect(templateListQuery(f, 'bot', 20)).not.toHaveProperty('bot_id');
    expect(templateListQuery(DEFAULT_TEMPLATE_FILTERS, 'operator', 20)).toEqual({
      page: 1,
      page_size: 20,
      sort: '-updated_at',
    });
  });
});

describe('template labels', () => {
  it('names formats and review statuses in both languages', () => {
    expect([1, 2, 3, 4].map(msgtypeLabel)).toEqual(['KMarkdown', 'Card (JSON)', 'Card (YAML)', 'Card (XML)']);
    expect([0, 1, 2, 3].map(reviewStatusLabel)).toEqual([
      'Not reviewed',
      'In review',
      'Approved',
      'Rejected',
    ]);
    expect(msgtypeLabel(9)).toBe('9');
    expect(reviewStatusLabel(7)).toBe('7');
    lang.value = 'zh-CN';
    expect([0, 1, 2, 3].map(reviewStatusLabel)).toEqual(['未审核', '审核中', '已通过', '已拒绝']);
    expect(msgtypeLabel(3)).toBe('卡片（YAML）');
  });

  it('colours review statuses apart', () => {
    expect(new Set([0, 1, 2, 3].map(reviewStatusBadge)).size).toBe(4);
  });

  it('reads times written as ms or ISO 8601', () => {
    expect(timeMs(1_700_000_000_000)).toBe(1_700_000_000_000);
    expect(timeMs('2023-11-14T22:13:20.000Z')).toBe(1_700_000_000_000);
    expect(timeMs('not a time')).toBeNull();
    expect(timeMs(null)).toBeNull();
  });
});

describe('what deleting a template would do', () => {
  it('names the pipes, counts the messages that would fail, and states the rule', () => {
    expect(
      usageSummary({
        pipes: [
          { id: 'p1', title: 'CI' },
          { id: 'p2', title: 'Deploys' },
        ],
        pending: 3,
      }),
    ).toEqual({
      pipes: '2 pipes use it: “CI”, “Deploys”.',
      pending: '3 messages not yet sent will fail with TEMPLATE_DELETED.',
      rule: 'Messages that use a deleted template can no longer be sent.',
    });
  });

  it('says so when nothing uses it, and counts one as one', () => {
    expect(usageSummary({ pipes: [], pending: 0 })).toMatchObject({
      pipes: 'No pipe uses it.',
      pending: 'No message waiting to be sent uses it.',
    });
    expect(usageSummary({ pipes: [{ id: 'p', title: 'Alerts' }], pending: 1 })).toMatchObject({
      pipes: '1 pipe uses it: “Alerts”.',
      pending: '1 message not yet sent will fail with TEMPLATE_DELETED.',
    });
  });

  it('lists five pipe names, then how many more', () => {
    const pipes = Array.from({ length: 8 }, (_, i) => ({ id: `p${i}`, title: `P${i}` }));
    expect(usageSummary({ pipes, pending: 1234 })).toMatchObject({
      pipes: '8 pipes use it: “P0”, “P1”, “P2”, “P3”, “P4” and 3 more.',
      pending: '1,234 messages not yet sent will fail with TEMPLATE_DELETED.',
    });
  });

  it('is in Chinese too', () => {
    lang.value = 'zh-CN';
    expect(usageSummary({ pipes: [{ id: 'p', title: 'CI' }], pending: 2 })).toEqual({
      pipes: '1 个管道使用它：“CI”。',
      pending: '2 条尚未发送的消息将以 TEMPLATE_DELETED 失败。',
      rule: '使用已删除模板的消息再也不能发送。',
    });
  });
});
