import { renderToString } from 'preact-render-to-string';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Role } from '../../console/src/api.ts';
import { type Lang, lang } from '../../console/src/i18n.ts';
import {
  lockedForReview,
  parseConsumption,
  reviewActions,
  reviewBody,
  reviewRules,
} from '../../console/src/studio/review-model.ts';
import { ReviewPanel } from '../../console/src/studio/review-panel.tsx';
import { textOf } from './html.ts';

let saved: Lang;
beforeEach(() => {
  saved = lang.value;
  lang.value = 'en-US';
});
afterEach(() => {
  lang.value = saved;
});

// Roles as values: biome reads a literal `role` attribute as an ARIA role.
const OPERATOR: Role = 'operator';
const BOT: Role = 'bot';

const tpl = (status: number, banned = false, consumption = 1) => ({ id: 'T1', status, banned, consumption });

/** The panel's button labels, in order. */
const buttons = (markup: string): string[] =>
  [...markup.matchAll(/<button[^>]*>([^<]*)<\/button>/g)].map((m) => m[1]!);

describe('review actions', () => {
  it('offers submit from not reviewed and rejected, to bots and operators alike', () => {
    for (const role of ['bot', 'operator'] as const) {
      expect(reviewActions(tpl(0), role)).toContain('submit');
      expect(reviewActions(tpl(3), role)).toContain('submit');
      expect(reviewActions(tpl(1), role)).not.toContain('submit');
      expect(reviewActions(tpl(2), role)).not.toContain('submit');
    }
  });

  it('gives a bot nothing but submit', () => {
    for (const s of [0, 1, 2, 3]) {
      for (const banned of [false, true]) {
        expect(reviewActions(tpl(s, banned), 'bot').filter((a) => a !== 'submit')).toEqual([]);
      }
    }
  });

  it('lets an operator approve or reject one in review, and ban or unban in any state', () => {
    expect(reviewActions(tpl(1), 'operator')).toEqual(['approve', 'reject', 'ban']);
    expect(reviewActions(tpl(0), 'operator')).toEqual(['submit', 'ban']);
    expect(reviewActions(tpl(2, true), 'operator')).toEqual(['unban']);
    expect(reviewActions(tpl(3, true), 'operator')).toEqual(['submit', 'unban']);
  });

  it('reads the approval cost: empty is the server default, else above 0 and at most a normal message’s', () => {
    expect(parseConsumption('')).toEqual({ ok: true, value: undefined });
    expect(parseConsumption('  ')).toEqual({ ok: true, value: undefined });
    expect(parseConsumption('0.25')).toEqual({ ok: true, value: 0.25 });
    expect(parseConsumption('.5')).toEqual({ ok: true, value: 0.5 });
    expect(parseConsumption('1')).toEqual({ ok: true, value: 1 });
    for (const bad of ['0', '-1', 'abc', '1e3', '0x1', 'NaN', '1,5', '1.01', '2'])
      expect(parseConsumption(bad).ok).toBe(false);
  });

  it('sends the cost only with an approval that names one', () => {
    expect(reviewBody('T1', 'approve', 0.25)).toEqual({ id: 'T1', action: 'approve', consumption: 0.25 });
    expect(reviewBody('T1', 'approve', undefined)).toEqual({ id: 'T1', action: 'approve' });
    expect(reviewBody('T1', 'ban', 0.25)).toEqual({ id: 'T1', action: 'ban' });
    // The version the page showed goes with a verdict on the text, not with an unban.
    expect(reviewBody('T1', 'approve', undefined, 4)).toEqual({ id: 'T1', action: 'approve', version: 4 });
    expect(reviewBody('T1', 'unban', undefined, 4)).toEqual({ id: 'T1', action: 'unban' });
  });

  it('marks the rule that holds now', () => {
    const now = (s: number, banned = false) =>
      reviewRules(tpl(s, banned))
        .filter((r) => r.now)
        .map((r) => r.text);
    expect(now(1)).toEqual(['In review: it cannot be edited, and it still sends.']);
    expect(now(2)).toEqual([
      'Approved, then changed: it goes back to not reviewed (and to the normal cost).',
    ]);
    expect(now(0, true)).toEqual(['Banned: messages that use it cannot be sent (TEMPLATE_BANNED).']);
    expect(now(0)).toEqual([]);
    expect(reviewRules(tpl(0))).toHaveLength(4);
    expect(lockedForReview(tpl(1))).toBe(true);
    expect(lockedForReview(tpl(2))).toBe(false);
  });
});

describe('the review panel', () => {
  it('shows an operator the state, the cost and the actions on a template in review', () => {
    const markup = renderToString(
      <ReviewPanel template={tpl(1, false, 1)} role={OPERATOR} onChanged={() => {}} />,
    );
    const text = textOf(markup);
    expect(text).toContain('In review');
    expect(text).toContain('Not banned');
    expect(text).toContain('Each message costs 1 (a normal message costs 1).');
    expect(text).toContain('Cost per message once approved');
    // The action buttons, then the ban dialog's own.
    expect(buttons(markup)).toEqual(['Approve', 'Reject', 'Ban', 'Cancel', 'Ban']);
  });

  it('shows a bot only Submit for review, and no cost field', () => {
    const markup = renderToString(
      <ReviewPanel template={tpl(3, false, 1)} role={BOT} onChanged={() => {}} />,
    );
    expect(buttons(markup).slice(0, 1)).toEqual(['Submit for review']);
    expect(buttons(markup)).not.toContain('Approve');
    expect(textOf(markup)).not.toContain('Cost per message once approved');
    expect(textOf(markup)).toContain('Rejected');
  });

  it('shows an approved, banned template’s lower cost, in Chinese too', () => {
    lang.value = 'zh-CN';
    const text = textOf(
      renderToString(<ReviewPanel template={tpl(2, true, 0.5)} role={OPERATOR} onChanged={() => {}} />),
    );
    expect(text).toContain('已通过');
    expect(text).toContain('已封禁');
    expect(text).toContain('每条消息消耗 0.5（普通消息为 1）。');
    expect(text).toContain('解除封禁');
  });
});
