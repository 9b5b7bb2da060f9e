/**
 * Messages that always fit (docs/pipes.md): a rendered message over the platform's limits made
 * into messages within them, as a pipe's `overflow` option says. `split`: several messages, in
 * order, together holding everything; `truncate`: one message, cut with a visible marker;
 * `fail`: the message fails, as before the option existed. Pure: no I/O, no clock but `now`.
 */

import {
  CONTEXT_ELEMENTS_MAX,
  HEADER_TEXT_MAX,
  KMARKDOWN_MAX,
  MAX_CARDS,
  MAX_MODULES_TOTAL,
  PLAIN_TEXT_MAX,
} from './cards/limits.js';
import type {
  Card,
  CardMessage,
  CardModule,
  ContextModule,
  ImageElement,
  Paragraph,
  SectionModule,
  TextElement,
} from './cards/types.js';
import { validateCard, validateCardShape } from './cards/validate-card.js';
import { CardInvalidError } from './errors/card-invalid-error.js';
import { MessageTooLongError } from './errors/message-too-long-error.js';
import { splitText, TRUNCATION_MARKER, truncateText } from './fit-text.js';
import { MAX_MESSAGE_LENGTH } from './limits.js';
import { mbLength } from './twig/runtime/mb.js';

export { TRUNCATION_MARKER } from './fit-text.js';

export const OVERFLOW_MODES = ['split', 'truncate', 'fail'] as const;
export type Overflow = (typeof OVERFLOW_MODES)[number];
/** A pipe that names none splits; so do the template studio's test messages. */
export const DEFAULT_OVERFLOW: Overflow = 'split';

/** What a header over its length ends with, in either mode (a title is not split). */
const HEADER_MARKER = '…';

/** The limit of a text element's content. */
const maxOf = (t: TextElement): number =>
  typeof t !== 'string' && t.type === 'kmarkdown' ? KMARKDOWN_MAX : PLAIN_TEXT_MAX;
const contentOf = (t: TextElement): string => (typeof t === 'string' ? t : t.content);
const isMarkdown = (t: TextElement): boolean => typeof t !== 'string' && t.type === 'kmarkdown';
/** The same element with other content (a bare string stays bare). */
const withContent = (t: TextElement, content: string): TextElement =>
  typeof t === 'string' ? content : { ...t, content };

/** A text element cut to its limit (truncate), or in parts within it (split). */
function fitText(t: TextElement, mode: 'split' | 'truncate'): TextElement[] {
  const text = contentOf(t);
  const max = maxOf(t);
  if (mbLength(text) <= max) return [t];
  if (mode === 'truncate') return [withContent(t, truncateText(text, max, isMarkdown(t)))];
  return splitText(text, max, isMarkdown(t)).map((part) => withContent(t, part));
}

const truncated = (t: TextElement): TextElement => fitText(t, 'truncate')[0] as TextElement;

/** A module whose texts are over their lengths, as modules within them. */
function fitModule(module: CardModule, mode: 'split' | 'truncate'): CardModule[] {
  switch (module.type) {
    case 'header': {
      const text = contentOf(module.text);
      if (mbLength(text) <= HEADER_TEXT_MAX) return [module];
      const cut = truncateText(text, HEADER_TEXT_MAX, false, HEADER_MARKER);
      return [{ ...module, text: typeof module.text === 'string' ? cut : { ...module.text, content: cut } }];
    }
    case 'section': {
      const t = module.text;
      if (typeof t !== 'string' && t.type === 'paragraph') {
        // A field is a table cell: cut, never spread over cells or sections.
        const fields = t.fields.map(truncated);
        return [{ ...module, text: { ...t, fields } satisfies Paragraph }];
      }
      const parts = fitText(t, mode);
      if (parts.length === 1) return [{ ...module, text: parts[0] as TextElement }];
      // The accessory (and its placement) stays with the first part.
      const { accessory: _a, mode: _m, ...bare } = module;
      return parts.map((text, i): SectionModule => (i === 0 ? { ...module, text } : { ...bare, text }));
    }
    case 'context': {
      const elements = module.elements.flatMap(
        (e): Array<TextElement | ImageElement> =>
          typeof e !== 'string' && e.type === 'image' ? [e] : fitText(e, mode),
      );
      const out: ContextModule[] = [];
      for (let i = 0; i < elements.length; i += CONTEXT_ELEMENTS_MAX) {
        out.push({ ...module, elements: elements.slice(i, i + CONTEXT_ELEMENTS_MAX) });
      }
      return out;
    }
    default:
      return [module];
  }
}

/** A card's modules in runs of at most `max`; a run does not end with a header it could carry on. */
function chunkModules(card: Card, max: number): Card[] {
  const out: Card[] = [];
  let i = 0;
  while (i < card.modules.length) {
    let end = Math.min(card.modules.length, i + max);
    if (end < card.modules.length && end - i > 1 && card.modules[end - 1]?.type === 'header') end -= 1;
    out.push({ ...card, modules: card.modules.slice(i, end) });
    i = end;
  }
  return out.length > 0 ? out : [card];
}

/** The marker a truncated card message ends with: a context module. */
const markerModule = (): ContextModule => ({
  type: 'context',
  elements: [{ type: 'plain-text', content: TRUNCATION_MARKER }],
});

/**
 * Split: whole cards go into messages in order, as many as fit (MAX_CARDS, MAX_MODULES_TOTAL);
 * a card with more modules than a message holds is cut between modules, each run a card of the
 * same theme, colour and size. Texts over their lengths were made into several modules first.
 */
function splitCards(cards: readonly Card[]): CardMessage[] {
  const messages: CardMessage[] = [];
  let current: Card[] = [];
  let modules = 0;
  const flush = () => {
    if (current.length > 0) messages.push(current);
    current = [];
    modules = 0;
  };
  for (const card of cards) {
    // A card that fits a message of its own is never cut.
    const runs = card.modules.length > MAX_MODULES_TOTAL ? chunkModules(card, MAX_MODULES_TOTAL) : [card];
    if (runs.length > 1) flush();
    for (const run of runs) {
      if (current.length >= MAX_CARDS || modules + run.modules.length > MAX_MODULES_TOTAL) flush();
      current.push(run);
      modules += run.modules.length;
    }
  }
  flush();
  return messages;
}

/** Truncate: the cards and modules that fit one message; what was left out is marked. */
function truncateCards(cards: readonly Card[]): CardMessage {
  const out: Card[] = [];
  let modules = 0;
  let cut = false;
  for (const card of cards) {
    if (out.length >= MAX_CARDS) {
      cut = true;
      break;
    }
    const room = MAX_MODULES_TOTAL - modules;
    if (card.modules.length > room) {
      if (room > 0) out.push({ ...card, modules: card.modules.slice(0, room) });
      cut = true;
      break;
    }
    out.push(card);
    modules += card.modules.length;
  }
  const last = out[out.length - 1];
  if (!cut || !last) return out;
  // The marker takes the last module's place when the message is full.
  const full = out.reduce((n, c) => n + c.modules.length, 0) >= MAX_MODULES_TOTAL;
  out[out.length - 1] = {
    ...last,
    modules: [...(full ? last.modules.slice(0, -1) : last.modules), markerModule()],
  };
  return out;
}

/**
 * A card message (checked by validateCardShape) as card messages that each pass validateCard:
 * one when it fits already (the same value), several in order (split), or one cut (truncate).
 * Throws the CardInvalidError of a rule no fit meets (a button's text over its length).
 */
export function fitCardMessage(cards: CardMessage, mode: 'split' | 'truncate', now: number): CardMessage[] {
  const fitted = cards.map((card) => ({ ...card, modules: card.modules.flatMap((m) => fitModule(m, mode)) }));
  const messages = mode === 'split' ? splitCards(fitted) : [truncateCards(fitted)];
  for (const m of messages) validateCard(m, now);
  return messages;
}

/** A rendered message as the messages to send. */
export interface FittedMessage {
  /** What each message sends, in order; one when the message fit or was truncated. */
  readonly parts: readonly string[];
  /** What fitting did: null when the message fit as it was. */
  readonly fitted: 'split' | 'truncated' | null;
}

/** A KMarkdown message (type 9) within MAX_MESSAGE_LENGTH, as `mode` says. */
export function fitKmarkdown(text: string, mode: Overflow): FittedMessage {
  const length = mbLength(text);
  if (length <= MAX_MESSAGE_LENGTH) return { parts: [text], fitted: null };
  if (mode === 'fail') throw new MessageTooLongError(length, MAX_MESSAGE_LENGTH);
  if (mode === 'truncate')
    return { parts: [truncateText(text, MAX_MESSAGE_LENGTH, true)], fitted: 'truncated' };
  return { parts: splitText(text, MAX_MESSAGE_LENGTH, true), fitted: 'split' };
}

/**
 * A parsed card message as the messages to send: validated as it is when it fits (the same
 * CardInvalidError as ever when `mode` is fail). Else it is checked without the limits a fit can
 * meet, so that a message with another fault reports that fault, and fitted. `locate` places an
 * error of the value as given in its text (a fitted part's error, whose path is the part's, is
 * thrown as it is).
 */
export function fitCards(
  value: unknown,
  mode: Overflow,
  now: number,
  locate: (err: unknown) => unknown = (err) => err,
): { cards: CardMessage[]; fitted: FittedMessage['fitted'] } {
  let shaped: CardMessage;
  try {
    try {
      return { cards: [validateCard(value, now)], fitted: null };
    } catch (err) {
      if (mode === 'fail' || !(err instanceof CardInvalidError)) throw err;
    }
    shaped = validateCardShape(value, now);
  } catch (err) {
    throw locate(err);
  }
  const cards = fitCardMessage(shaped, mode, now);
  return { cards, fitted: mode === 'split' ? 'split' : 'truncated' };
}
