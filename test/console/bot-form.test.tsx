import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type BotForm,
  botToForm,
  formToBody,
  isWebUrl,
  keptImageRows,
  newImageRow,
} from '../../console/src/bot-form.ts';
import { type Lang, lang } from '../../console/src/i18n.ts';
import type { BotView } from '../../console/src/ops-types.ts';

let saved: Lang;
beforeEach(() => {
  saved = lang.value;
  lang.value = 'en-US';
});
afterEach(() => {
  lang.value = saved;
});

const bot: BotView = {
  id: '101',
  name: 'Herald',
  user_id: '9001',
  enabled: true,
  default_score: 80,
  default_img_id: 'b',
  img_list: [
    { id: 'a', url: 'https://img.example/a.png' },
    { id: 'b', url: 'https://img.example/b.png' },
  ],
  rate_capacity: 20,
  rate_per_second: 2.5,
  sink: 'relay',
  relay_url: 'https://up.example',
  upstream_token_set: true,
  created_at: 1,
  updated_at: 2,
};

const form = (f: Partial<BotForm> = {}): BotForm => ({ ...botToForm(), name: 'n', ...f });

describe('bot form <-> API body', () => {
  it('fills the form from a bot, never with the upstream token', () => {
    const f = botToForm(bot);
    expect(f).toMatchObject({
      name: 'Herald',
      default_score: '80',
      default_img_id: 'b',
      sink: 'relay',
      relay_url: 'https://up.example',
      upstream_token: '',
      clear_upstream_token: false,
      rate_capacity: '20',
      rate_per_second: '2.5',
    });
    expect(f.images.map((i) => [i.id, i.url])).toEqual([
      ['a', 'https://img.example/a.png'],
      ['b', 'https://img.example/b.png'],
    ]);
  });

  it('sends back an untouched bot as it is, keeping the stored upstream token (field left out)', () => {
    const r = formToBody(botToForm(bot), bot);
    expect(r).toEqual({
      ok: true,
      body: {
        id: '101',
        name: 'Herald',
        default_score: 80,
        img_list: bot.img_list,
        default_img_id: 'b',
        sink: 'relay',
        relay_url: 'https://up.example',
        rate_capacity: 20,
        rate_per_second: 2.5,
      },
    });
  });

  it('on create leaves empty optional fields out; on edit it clears them', () => {
    const created = formToBody(form());
    expect(created).toEqual({
      ok: true,
      body: { name: 'n', default_score: 0, img_list: [], default_img_id: '', sink: 'store' },
    });
    const edited = formToBody(
      { ...botToForm(bot), rate_capacity: '', rate_per_second: ' ', sink: 'store', relay_url: '' },
      bot,
    );
    expect(edited.ok && edited.body).toMatchObject({
      rate_capacity: null,
      rate_per_second: null,
      relay_url: '',
    });
    expect(edited.ok && 'upstream_token' in edited.body).toBe(false);
  });

  it('sends a typed upstream token, or "" to remove the stored one', () => {
    const typed = formToBody({ ...botToForm(bot), upstream_token: 's3cret' }, bot);
    expect(typed.ok && typed.body.upstream_token).toBe('s3cret');
    const cleared = formToBody({ ...botToForm(bot), clear_upstream_token: true, sink: 'store' }, bot);
    expect(cleared.ok && cleared.body.upstream_token).toBe('');
    const fresh = formToBody(form({ sink: 'relay', relay_url: 'https://x.example/', upstream_token: 't' }));
    expect(fresh.ok && fresh.body).toMatchObject({ relay_url: 'https://x.example', upstream_token: 't' });
  });

  it('drops image rows left wholly empty and names errors by the index the API will see', () => {
    const images = [
      newImageRow(),
      newImageRow('a', 'https://i/a.png'),
      newImageRow('', ''),
      newImageRow('a', 'ftp://x'),
    ];
    expect(keptImageRows(images)).toEqual([1, 3]);
    const r = formToBody(form({ images, default_img_id: 'zz' }));
    expect(r).toEqual({
      ok: false,
      errors: {
        'img_list[1].id': 'Image id "a" appears more than once',
        'img_list[1].url': 'Must be an address starting with http:// or https://',
        default_img_id: 'The default image must be one of the list',
      },
    });
  });

  it('checks the numbers and the name before sending', () => {
    const r = formToBody(
      form({ name: ' ', default_score: '2201', rate_capacity: '1.5', rate_per_second: '0', sink: 'relay' }),
    );
    expect(r.ok).toBe(false);
    expect(!r.ok && Object.keys(r.errors).sort()).toEqual([
      'default_score',
      'name',
      'rate_capacity',
      'rate_per_second',
      'relay_url',
    ]);
    expect(formToBody(form({ default_score: '2200', rate_capacity: '1', rate_per_second: '0.5' })).ok).toBe(
      true,
    );
  });

  it('draws only http(s) images', () => {
    expect(isWebUrl('https://img.example/a.png')).toBe(true);
    expect(isWebUrl('HTTP://img.example/a.png')).toBe(true);
    expect(isWebUrl('javascript:alert(1)')).toBe(false);
    expect(isWebUrl('data:image/png;base64,AAAA')).toBe(false);
    expect(isWebUrl('//img.example/a.png')).toBe(false);
    expect(isWebUrl('https://')).toBe(false);
  });
});
