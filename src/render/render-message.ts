import { ValidationError } from '../errors/index.js';
import { convertCard } from './cards/index.js';
import type { CardFormat } from './cards/types.js';
import { MessageTooLongError } from './errors/message-too-long-error.js';
import { MAX_MESSAGE_LENGTH } from './limits.js';
import type { PlatformContext } from './platform.js';
import {
  type CompiledTemplate,
  compileTemplate,
  type RenderOptions,
  type TemplateWarning,
} from './twig/index.js';
import { mbLength } from './twig/runtime/mb.js';

/** A template to render: its source, or (for workers that compile once) the compiled form. */
export type MessageTemplate =
  | { readonly content: string; readonly msgtype: number }
  | { readonly compiled: CompiledTemplate; readonly msgtype: number };

export interface RenderedMessage {
  /** 9 = KMarkdown, 10 = card message */
  readonly type: 9 | 10;
  readonly content: string;
  /**
   * PHP warnings the render went past (an array printed, a numeric-leading string in
   * arithmetic): the message is sent as PHP Twig renders it, and the warnings are shown to the
   * author. At most MAX_WARNINGS are kept; `warningCount` counts them all.
   */
  readonly warnings: readonly TemplateWarning[];
  readonly warningCount: number;
}

const CARD_FORMATS: Readonly<Record<number, CardFormat>> = { 2: 'json', 3: 'yaml', 4: 'xml' };

/**
 * Renders a template into the message the platform sends: msgtype 1 is KMarkdown (type 9, at
 * most MAX_MESSAGE_LENGTH characters); 2/3/4 are card templates in JSON/YAML/XML, converted and
 * validated by the card module (type 10, content is the card JSON).
 */
export function renderMessage(
  tpl: MessageTemplate,
  data: unknown,
  platform: PlatformContext,
  options: RenderOptions = {},
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
  if (!format) {
    const length = mbLength(text);
    if (length > MAX_MESSAGE_LENGTH) throw new MessageTooLongError(length, MAX_MESSAGE_LENGTH);
    return { type: 9, content: text, warnings, warningCount };
  }
  const cards = convertCard(text, format, options.now ?? Date.now());
  return { type: 10, content: JSON.stringify(cards), warnings, warningCount };
}
