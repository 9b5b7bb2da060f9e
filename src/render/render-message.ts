import { ValidationError } from '../errors/index.js';
import { parseCardText } from './cards/index.js';
import type { CardFormat } from './cards/types.js';
import { fitCards, fitKmarkdown, type Overflow } from './fit.js';
import type { PlatformContext } from './platform.js';
import {
  type CompiledTemplate,
  compileTemplate,
  type RenderOptions,
  type TemplateWarning,
} from './twig/index.js';

/** A template to render: its source, or (for workers that compile once) the compiled form. */
export type MessageTemplate =
  | { readonly content: string; readonly msgtype: number }
  | { readonly compiled: CompiledTemplate; readonly msgtype: number };

export interface RenderedMessage {
  /** 9 = KMarkdown, 10 = card message */
  readonly type: 9 | 10;
  /**
   * The message: as rendered, or as truncated (render/fit.ts). A message split into `parts` is
   * here whole (a card message as its fitted cards in one list), for its delivery record.
   */
  readonly content: string;
  /**
   * PHP warnings the render went past (an array printed, a numeric-leading string in
   * arithmetic): the message is sent as PHP Twig renders it, and the warnings are shown to the
   * author. At most MAX_WARNINGS are kept; `warningCount` counts them all.
   */
  readonly warnings: readonly TemplateWarning[];
  readonly warningCount: number;
  /** Only for a message split over several: what each sends, in order. */
  readonly parts?: readonly string[];
}

/** A message fitted to the platform's limits, before the render's warnings are added. */
export type FittedMessage = Omit<RenderedMessage, 'warnings' | 'warningCount'>;

/**
 * A rendered message's text (KMarkdown, or a card message parsed from `format`) as the message
 * to send, fitted to the platform's limits as `overflow` says (render/fit.ts).
 */
export function fitRendered(
  text: string,
  format: CardFormat | null,
  overflow: Overflow,
  now: number,
): FittedMessage {
  if (format === null) {
    const fitted = fitKmarkdown(text, overflow);
    if (fitted.fitted === 'split') return { type: 9, content: text, parts: fitted.parts };
    return { type: 9, content: fitted.parts[0] as string };
  }
  const { value, locate } = parseCardText(text, format);
  const { cards } = fitCards(value, overflow, now, locate);
  if (cards.length === 1) return { type: 10, content: JSON.stringify(cards[0]) };
  return { type: 10, content: JSON.stringify(cards.flat()), parts: cards.map((c) => JSON.stringify(c)) };
}

const CARD_FORMATS: Readonly<Record<number, CardFormat>> = { 2: 'json', 3: 'yaml', 4: 'xml' };

/**
 * Renders a template into the message the platform sends: msgtype 1 is KMarkdown (type 9, at
 * most MAX_MESSAGE_LENGTH characters); 2/3/4 are card templates in JSON/YAML/XML, converted and
 * validated by the card module (type 10, content is the card JSON). A message over the limits
 * fails (`overflow` fail, the default) or is fitted (render/fit.ts).
 */
export function renderMessage(
  tpl: MessageTemplate,
  data: unknown,
  platform: PlatformContext,
  options: RenderOptions = {},
  overflow: Overflow = 'fail',
): RenderedMessage {
  const format = CARD_FORMATS[tpl.msgtype];
  if (tpl.msgtype !== 1 && !format) {
    throw new ValidationError('msgtype', {
      'zh-CN': '必须是 1、2、3 或 4',
      'en-US': 'must be 1, 2, 3 or 4',
    });
  }
  const compiled = 'compiled' in tpl ? tpl.compiled : compileTemplate(tpl.content);
  const { output: text, warnings, warningCount } = compiled.renderWithWarnings(data, platform, options);
  return {
    ...fitRendered(text, format ?? null, overflow, options.now ?? Date.now()),
    warnings,
    warningCount,
  };
}
