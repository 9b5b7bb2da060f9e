import { translator } from './i18n.ts';
import type { BotView } from './ops-types.ts';

/*
 * The bot form's values (strings, as the inputs hold them) and the API body they become
 * (POST /admin/api/bot/create and /bot/update; src/api/routes/admin-bots.ts). Pure, so the
 * conversion is tested without a browser. The form checks what it can say better than the
 * API (a number typed as text, a URL that is not http(s)); the API checks the rest and its
 * message is shown at the field it names.
 */

const t = translator({
  'zh-CN': {
    required: '必填',
    tooLong: '最多 {n} 个字符',
    integer: '必须是 {min} 到 {max} 之间的整数',
    positive: '必须是大于 0、不超过 {max} 的数字',
    url: '必须是 http:// 或 https:// 开头的地址',
    duplicate: '图片 id "{id}" 重复',
    noDefault: '默认图片必须是列表中的一张',
    relayUrl: '投递方式为转发时必填',
  },
  'en-US': {
    required: 'Required',
    tooLong: 'At most {n} characters',
    integer: 'Must be a whole number from {min} to {max}',
    positive: 'Must be a number above 0 and at most {max}',
    url: 'Must be an address starting with http:// or https://',
    duplicate: 'Image id "{id}" appears more than once',
    noDefault: 'The default image must be one of the list',
    relayUrl: 'Required when the sink is relay',
  },
});

/** The API's limits (src/api/routes/admin-bots.ts, intimacy.ts). */
export const MAX_SCORE = 2200;
export const MAX_IMAGES = 100;
const MAX_RATE = 1_000_000;

export interface ImageRow {
  /** A key for the list's rendering only (rows have no stable id while typed). */
  key: number;
  id: string;
  url: string;
}

export interface BotForm {
  name: string;
  default_score: string;
  images: ImageRow[];
  /** '' for no default image. */
  default_img_id: string;
  sink: 'store' | 'relay';
  relay_url: string;
  /** Typed only to set a new one; '' keeps the stored one (edit) or sets none (create). */
  upstream_token: string;
  /** Edit only: remove the stored upstream token. */
  clear_upstream_token: boolean;
  /** '' for the service's default. */
  rate_capacity: string;
  rate_per_second: string;
}

let nextKey = 1;
export const newImageRow = (id = '', url = ''): ImageRow => ({ key: nextKey++, id, url });

/** The form for a new bot (no argument) or for editing `bot`. The upstream token is never filled. */
export function botToForm(bot?: BotView): BotForm {
  return {
    name: bot?.name ?? '',
    default_score: String(bot?.default_score ?? 0),
    images: (bot?.img_list ?? []).map((i) => newImageRow(i.id, i.url)),
    default_img_id: bot?.default_img_id ?? '',
    sink: bot?.sink ?? 'store',
    relay_url: bot?.relay_url ?? '',
    upstream_token: '',
    clear_upstream_token: false,
    rate_capacity: bot?.rate_capacity == null ? '' : String(bot.rate_capacity),
    rate_per_second: bot?.rate_per_second == null ? '' : String(bot.rate_per_second),
  };
}

/** Whether `url` may be drawn as an <img>: http or https only (no javascript:, data:, file:). */
export function isWebUrl(url: string): boolean {
  if (!/^https?:\/\//i.test(url.trim())) return false;
  try {
    const u = new URL(url.trim());
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

const blankRow = (r: ImageRow): boolean => r.id.trim() === '' && r.url.trim() === '';

/**
 * The form's indexes of the image rows the body keeps, in order: body index i is form row
 * kept[i]. Rows left wholly empty (an "add image" click not used) are dropped, so the API's
 * `img_list[i]` names are mapped back to the rows they came from through this.
 */
export const keptImageRows = (rows: readonly ImageRow[]): number[] =>
  rows.flatMap((r, j) => (blankRow(r) ? [] : [j]));

export interface BotBody {
  id?: string;
  name: string;
  default_score: number;
  img_list: { id: string; url: string }[];
  default_img_id: string;
  sink: 'store' | 'relay';
  relay_url?: string;
  upstream_token?: string;
  rate_capacity?: number | null;
  rate_per_second?: number | null;
}

export type BotFormResult = { ok: true; body: BotBody } | { ok: false; errors: Record<string, string> };

const WHOLE = /^\d+$/;

/**
 * The API body for the form, or the messages by API field name (`img_list[2].url`) when the
 * form cannot be sent as it is. `existing` is the bot being edited (create when absent).
 */
export function formToBody(form: BotForm, existing?: BotView): BotFormResult {
  const errors: Record<string, string> = {};
  const editing = existing !== undefined;

  const name = form.name.trim();
  if (name === '') errors.name = t('required');
  else if (name.length > 64) errors.name = t('tooLong', { n: 64 });

  const score = form.default_score.trim();
  if (!WHOLE.test(score) || Number(score) > MAX_SCORE) {
    errors.default_score = t('integer', { min: 0, max: MAX_SCORE });
  }

  const rows = keptImageRows(form.images).map((j) => ({
    id: form.images[j]!.id.trim(),
    url: form.images[j]!.url.trim(),
  }));
  const seen = new Set<string>();
  rows.forEach((r, i) => {
    if (r.id === '') errors[`img_list[${i}].id`] = t('required');
    else if (r.id.length > 64) errors[`img_list[${i}].id`] = t('tooLong', { n: 64 });
    else if (seen.has(r.id)) errors[`img_list[${i}].id`] = t('duplicate', { id: r.id });
    seen.add(r.id);
    if (!isWebUrl(r.url)) errors[`img_list[${i}].url`] = t('url');
    else if (r.url.length > 1024) errors[`img_list[${i}].url`] = t('tooLong', { n: 1024 });
  });
  const defaultImg = form.default_img_id.trim();
  if (defaultImg !== '' && !seen.has(defaultImg)) errors.default_img_id = t('noDefault');

  const relayUrl = form.relay_url.trim().replace(/\/+$/, '');
  if (relayUrl !== '' && !isWebUrl(relayUrl)) errors.relay_url = t('url');
  else if (form.sink === 'relay' && relayUrl === '') errors.relay_url = t('relayUrl');

  const capacity = form.rate_capacity.trim();
  if (capacity !== '' && (!WHOLE.test(capacity) || Number(capacity) < 1 || Number(capacity) > MAX_RATE)) {
    errors.rate_capacity = t('integer', { min: 1, max: MAX_RATE });
  }
  const perSecond = form.rate_per_second.trim();
  const perSecondN = Number(perSecond);
  if (perSecond !== '' && (!Number.isFinite(perSecondN) || perSecondN <= 0 || perSecondN > MAX_RATE)) {
    errors.rate_per_second = t('positive', { max: MAX_RATE });
  }

  if (Object.keys(errors).length > 0) return { ok: false, errors };

  const body: BotBody = {
    ...(editing ? { id: existing.id } : {}),
    name,
    default_score: Number(score),
    img_list: rows,
    default_img_id: defaultImg,
    sink: form.sink,
  };
  // On edit an emptied field is sent, to clear it; on create an empty field is simply left out.
  if (editing || relayUrl !== '') body.relay_url = relayUrl;
  if (editing && form.clear_upstream_token) body.upstream_token = '';
  else if (form.upstream_token !== '') body.upstream_token = form.upstream_token;
  if (capacity !== '') body.rate_capacity = Number(capacity);
  else if (editing) body.rate_capacity = null;
  if (perSecond !== '') body.rate_per_second = perSecondN;
  else if (editing) body.rate_per_second = null;
  return { ok: true, body };
}
