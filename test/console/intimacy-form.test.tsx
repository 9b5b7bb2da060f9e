import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Lang, lang } from '../../console/src/i18n.ts';
import { currentImageId, intimacyChanges, intimacyToForm } from '../../console/src/intimacy-form.ts';
import type { IntimacyView } from '../../console/src/ops-types.ts';

let saved: Lang;
beforeEach(() => {
  saved = lang.value;
  lang.value = 'en-US';
});
afterEach(() => {
  lang.value = saved;
});

const view: IntimacyView = {
  img_url: 'https://i/b.png',
  social_info: 'hi',
  last_modify: 5,
  last_read: 6,
  score: 10,
  img_list: [
    { id: 'a', url: 'https://i/a.png' },
    { id: 'b', url: 'https://i/b.png' },
  ],
};

describe('intimacy editor', () => {
  it("finds the record's image by the id the server names, else by its URL", () => {
    expect(currentImageId(view)).toBe('b');
    expect(currentImageId({ ...view, img_id: 'a' })).toBe('a');
    expect(currentImageId({ ...view, img_url: '' })).toBe('');
    expect(currentImageId({ ...view, img_id: 'gone', img_url: 'https://elsewhere' })).toBe('');
  });

  it('sends only what changed', () => {
    const initial = intimacyToForm(view);
    expect(intimacyChanges(initial, initial)).toEqual({ ok: true, changes: {} });
    expect(intimacyChanges(initial, { ...initial, score: '42' })).toEqual({
      ok: true,
      changes: { score: 42 },
    });
    expect(intimacyChanges(initial, { ...initial, img_id: 'a', social_info: '' })).toEqual({
      ok: true,
      changes: { img_id: 'a', social_info: '' },
    });
  });

  it('refuses a score outside 0 to 2200 and a long social info', () => {
    const initial = intimacyToForm(view);
    const r = intimacyChanges(initial, { ...initial, score: '2201', social_info: 'x'.repeat(501) });
    expect(r).toEqual({
      ok: false,
      errors: { score: 'Must be a whole number from 0 to 2200', social_info: 'At most 500 characters' },
    });
    expect(intimacyChanges(initial, { ...initial, score: '-1' }).ok).toBe(false);
    expect(intimacyChanges(initial, { ...initial, social_info: '😀'.repeat(500) }).ok).toBe(true);
  });
});
