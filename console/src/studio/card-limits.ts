import { formatPath } from '../../../src/render/cards/card-path.ts';
import {
  BUTTONS_MAX,
  CONTEXT_ELEMENTS_MAX,
  HEADER_TEXT_MAX,
  IMAGES_MAX,
  KMARKDOWN_MAX,
  MAX_CARDS,
  MAX_MODULES_TOTAL,
  PARAGRAPH_FIELDS_MAX,
  PLAIN_TEXT_MAX,
} from '../../../src/render/cards/limits.ts';
import { MAX_MESSAGE_LENGTH } from '../../../src/render/limits.ts';
import { translator } from '../i18n.ts';

/*
 * Warnings for a rendered message that is at or near one of the platform's limits. A message
 * over a limit is refused by the render (CARD_INVALID, MESSAGE_TOO_LONG); one close to it renders
 * with this test data and fails with a longer payload, which is what these warn about before a
 * real sender finds out. Counts and lengths as the server checks them (src/render/cards/limits.ts,
 * lengths in characters, i.e. code points).
 */

export type LimitKind =
  | 'cards'
  | 'modules'
  | 'header'
  | 'plainText'
  | 'kmarkdown'
  | 'images'
  | 'buttons'
  | 'contextElements'
  | 'paragraphFields'
  | 'messageLength';

export interface LimitWarning {
  kind: LimitKind;
  /** Where, as the server's card errors name it (`card[0].modules[3].text`); '' for the whole message. */
  path: string;
  value: number;
  max: number;
  /** At the limit (not only near it). */
  at: boolean;
}

/** Share of a large limit (50 modules, a text's length) from which a value counts as near it. */
export const NEAR_SHARE = 0.8;
/** Limits below this are small counts (5 cards, 4 buttons): only reaching them is worth a warning. */
const LARGE_LIMIT = 50;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** Characters as the platform counts them (code points). */
const chars = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

function check(
  out: LimitWarning[],
  kind: LimitKind,
  path: (string | number)[] | '',
  value: number,
  max: number,
) {
  const near = max >= LARGE_LIMIT ? value >= Math.ceil(max * NEAR_SHARE) : value >= max;
  if (near) out.push({ kind, path: path === '' ? '' : formatPath(path), value, max, at: value >= max });
}

/** A text element (bare string, plain-text or kmarkdown) against its limit. */
function text(out: LimitWarning[], v: unknown, path: (string | number)[], plainMax: number) {
  if (typeof v === 'string')
    check(out, plainMax === HEADER_TEXT_MAX ? 'header' : 'plainText', path, chars(v), plainMax);
  else if (isObj(v) && typeof v.content === 'string') {
    const at = [...path, 'content'];
    if (v.type === 'kmarkdown') check(out, 'kmarkdown', at, chars(v.content), KMARKDOWN_MAX);
    else if (v.type === 'plain-text')
      check(out, plainMax === HEADER_TEXT_MAX ? 'header' : 'plainText', at, chars(v.content), plainMax);
  }
}

function module(out: LimitWarning[], m: unknown, path: (string | number)[]) {
  if (!isObj(m)) return;
  switch (m.type) {
    case 'header':
      text(out, m.text, [...path, 'text'], HEADER_TEXT_MAX);
      break;
    case 'section': {
      const t = m.text;
      if (isObj(t) && t.type === 'paragraph') {
        const fields = list(t.fields);
        check(out, 'paragraphFields', [...path, 'text', 'fields'], fields.length, PARAGRAPH_FIELDS_MAX);
        fields.forEach((f, i) => {
          text(out, f, [...path, 'text', 'fields', i], PLAIN_TEXT_MAX);
        });
      } else {
        text(out, t, [...path, 'text'], PLAIN_TEXT_MAX);
      }
      if (isObj(m.accessory) && m.accessory.type === 'button') {
        text(out, m.accessory.text, [...path, 'accessory', 'text'], PLAIN_TEXT_MAX);
      }
      break;
    }
    case 'image-group':
    case 'container':
      check(out, 'images', [...path, 'elements'], list(m.elements).length, IMAGES_MAX);
      break;
    case 'action-group': {
      const buttons = list(m.elements);
      check(out, 'buttons', [...path, 'elements'], buttons.length, BUTTONS_MAX);
      buttons.forEach((b, i) => {
        if (isObj(b)) text(out, b.text, [...path, 'elements', i, 'text'], PLAIN_TEXT_MAX);
      });
      break;
    }
    case 'context': {
      const elements = list(m.elements);
      check(out, 'contextElements', [...path, 'elements'], elements.length, CONTEXT_ELEMENTS_MAX);
      elements.forEach((e, i) => {
        text(out, e, [...path, 'elements', i], PLAIN_TEXT_MAX);
      });
      break;
    }
  }
}

/**
 * The limits a card message (a list of cards, as rendered) is at or near: the whole message's
 * first (cards, modules in all cards: the ones a longer payload, more commits or alerts, breaks),
 * then each module's, in document order.
 */
export function cardLimitWarnings(cards: unknown): LimitWarning[] {
  const all = list(cards);
  const inner: LimitWarning[] = [];
  let modules = 0;
  all.forEach((card, c) => {
    if (!isObj(card)) return;
    const ms = list(card.modules);
    modules += ms.length;
    ms.forEach((m, i) => {
      module(inner, m, [c, 'modules', i]);
    });
  });
  const whole: LimitWarning[] = [];
  check(whole, 'cards', '', all.length, MAX_CARDS);
  check(whole, 'modules', '', modules, MAX_MODULES_TOTAL);
  return [...whole, ...inner];
}

/** The limits a rendered message is at or near: a card's (type 10), or a KMarkdown message's length. */
export function messageLimitWarnings(message: { type: number; content: string }): LimitWarning[] {
  if (message.type === 10) {
    try {
      return cardLimitWarnings(JSON.parse(message.content));
    } catch {
      return [];
    }
  }
  const out: LimitWarning[] = [];
  check(out, 'messageLength', '', chars(message.content), MAX_MESSAGE_LENGTH);
  return out;
}

const t = translator({
  'zh-CN': {
    cards: '卡片数',
    modules: '模块总数',
    header: '标题文字长度',
    plainText: '纯文本长度',
    kmarkdown: 'KMarkdown 文字长度',
    images: '图片数',
    buttons: '按钮数',
    contextElements: '备注元素数',
    paragraphFields: '区域文本字段数',
    messageLength: '消息长度',
    at: '{what}已达上限：{value} / {max}{where}。更长的数据会被拒绝。',
    near: '{what}接近上限：{value} / {max}{where}。更长的数据可能超出上限。',
    where: '（{path}）',
  },
  'en-US': {
    cards: 'Cards',
    modules: 'Modules in all cards',
    header: 'Header text length',
    plainText: 'Plain text length',
    kmarkdown: 'KMarkdown text length',
    images: 'Images',
    buttons: 'Buttons',
    contextElements: 'Context elements',
    paragraphFields: 'Paragraph fields',
    messageLength: 'Message length',
    at: '{what} at the limit: {value} of {max}{where}. Longer data will be refused.',
    near: '{what} near the limit: {value} of {max}{where}. Longer data may go over it.',
    where: ' ({path})',
  },
});

/** A warning as a sentence in the current language. */
export function limitWarningText(w: LimitWarning): string {
  return t(w.at ? 'at' : 'near', {
    what: t(w.kind),
    value: w.value,
    max: w.max,
    where: w.path === '' ? '' : t('where', { path: w.path }),
  });
}
