import { translator } from './i18n.ts';
import type { IntimacyView } from './ops-types.ts';

/*
 * The intimacy editor's values and the changes it sends (POST /admin/api/intimacy/update, the
 * bot API's rules: score 0 to 2200, social_info at most 500 characters, img_id one of the bot's
 * images). Only what the operator changed is sent, so saving an untouched image does not pin a
 * user to the image the bot's default happens to be today.
 */

const t = translator({
  'zh-CN': {
    score: '必须是 0 到 {max} 之间的整数',
    social: '最多 {max} 个字符',
  },
  'en-US': {
    score: 'Must be a whole number from 0 to {max}',
    social: 'At most {max} characters',
  },
});

export const MAX_SCORE = 2200;
export const MAX_SOCIAL_INFO = 500;

export interface IntimacyForm {
  score: string;
  social_info: string;
  /** '' when the record's image is none of the list. */
  img_id: string;
}

/** The image the record shows: the id the server names, else the list's image with that URL. */
export function currentImageId(view: IntimacyView): string {
  if (view.img_id != null && view.img_list.some((i) => i.id === view.img_id)) return String(view.img_id);
  return view.img_list.find((i) => i.url === view.img_url && view.img_url !== '')?.id ?? '';
}

export const intimacyToForm = (view: IntimacyView): IntimacyForm => ({
  score: String(view.score),
  social_info: view.social_info,
  img_id: currentImageId(view),
});

export interface IntimacyChanges {
  score?: number;
  social_info?: string;
  img_id?: string;
}

export type IntimacyResult =
  | { ok: true; changes: IntimacyChanges }
  | { ok: false; errors: Record<string, string> };

/** The fields of `form` that differ from `initial`, checked; `changes` is {} when nothing changed. */
export function intimacyChanges(initial: IntimacyForm, form: IntimacyForm): IntimacyResult {
  const errors: Record<string, string> = {};
  const changes: IntimacyChanges = {};
  const score = form.score.trim();
  if (score !== initial.score) {
    if (!/^\d+$/.test(score) || Number(score) > MAX_SCORE) errors.score = t('score', { max: MAX_SCORE });
    else changes.score = Number(score);
  }
  if (form.social_info !== initial.social_info) {
    // JSON Schema's maxLength (the API's check) counts code points, as the spread does.
    if ([...form.social_info].length > MAX_SOCIAL_INFO)
      errors.social_info = t('social', { max: MAX_SOCIAL_INFO });
    else changes.social_info = form.social_info;
  }
  if (form.img_id !== initial.img_id && form.img_id !== '') changes.img_id = form.img_id;
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, changes };
}
