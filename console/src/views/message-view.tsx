import type { VNode } from 'preact';
import { useState } from 'preact/hooks';
import { translator } from '../i18n.ts';
import { drawCards } from './card-view.tsx';
import { drawKmarkdown } from './kmarkdown.tsx';

/**
 * A rendered message as stored on a delivery: type 9 KMarkdown (1, a template's KMarkdown
 * msgtype, is read the same way), 10 card (a JSON array of cards).
 */
export interface RenderedMessage {
  type: number;
  content: string;
  /** The PHP warnings the render went past (the first few), when it had any. */
  warnings?: readonly RenderWarning[];
  /** How many warnings there were in all. */
  warning_count?: number;
}

/** A PHP warning the render went past, at its line and column in the template. */
export interface RenderWarning {
  message: string;
  line: number;
  column: number;
}

const t = translator({
  'zh-CN': {
    raw: '原文',
    drawn: '渲染效果',
    showRaw: '显示原文',
    showDrawn: '显示渲染效果',
    kmarkdown: 'KMarkdown 消息',
    card: '卡片消息',
    notCard: '内容不能作为卡片消息读取（{error}），按原文显示。',
    notDrawn: '内容无法渲染（{error}），按原文显示。',
    unknownType: '消息类型 {type} 不能渲染，按原文显示。',
  },
  'en-US': {
    raw: 'Raw',
    drawn: 'Drawn',
    showRaw: 'Show the raw text',
    showDrawn: 'Show the message as drawn',
    kmarkdown: 'KMarkdown message',
    card: 'Card message',
    notCard: 'The content cannot be read as a card message ({error}); shown as raw text.',
    notDrawn: 'The content could not be drawn ({error}); shown as raw text.',
    unknownType: 'Message type {type} is not drawn; shown as raw text.',
  },
});

const KMARKDOWN_TYPES: ReadonlySet<number> = new Set([1, 9]);
const CARD_TYPE = 10;

type Prepared =
  | { ok: true; kind: 'kmarkdown' | 'card'; drawn: VNode; raw: string }
  | { ok: false; raw: string; notice: string };

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Draws the message up front, so any failure (bad JSON, a bug) turns into the raw fallback. */
function prepare(m: RenderedMessage, now: number | undefined): Prepared {
  const content = typeof m.content === 'string' ? m.content : String(m.content ?? '');
  if (KMARKDOWN_TYPES.has(m.type)) {
    try {
      return { ok: true, kind: 'kmarkdown', drawn: drawKmarkdown(content), raw: content };
    } catch (e) {
      return { ok: false, raw: content, notice: t('notDrawn', { error: message(e) }) };
    }
  }
  if (m.type === CARD_TYPE) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch (e) {
      return { ok: false, raw: content, notice: t('notCard', { error: message(e) }) };
    }
    if (!Array.isArray(parsed)) {
      return { ok: false, raw: content, notice: t('notCard', { error: 'not a JSON array' }) };
    }
    try {
      return { ok: true, kind: 'card', drawn: drawCards(parsed, now), raw: JSON.stringify(parsed, null, 2) };
    } catch (e) {
      return { ok: false, raw: content, notice: t('notDrawn', { error: message(e) }) };
    }
  }
  return { ok: false, raw: content, notice: t('unknownType', { type: String(m.type) }) };
}

/**
 * Draws a message as the platform shows it (KMarkdown as formatted text, a card with its
 * modules), with a button that toggles to the raw text (cards as indented JSON). Content that
 * cannot be drawn shows as raw text with a notice; this never throws.
 * `now` fixes the time countdowns are drawn at (default: now); `raw` starts on the raw text.
 */
export function MessageView(props: { message: RenderedMessage; now?: number; raw?: boolean }) {
  const [showRaw, setShowRaw] = useState(props.raw === true);
  const p = prepare(props.message, props.now);
  if (!p.ok) {
    return (
      <div class="msg-view">
        <div class="notice warn msg-view-notice" role="status">
          {p.notice}
        </div>
        <pre class="msg-raw">{p.raw}</pre>
      </div>
    );
  }
  return (
    <div class={`msg-view msg-view-${p.kind}`}>
      <div class="msg-view-bar">
        <span class="msg-view-kind">{t(p.kind)}</span>
        <button
          type="button"
          class="secondary msg-view-toggle"
          title={showRaw ? t('showDrawn') : t('showRaw')}
          onClick={() => setShowRaw(!showRaw)}
        >
          {showRaw ? t('drawn') : t('raw')}
        </button>
      </div>
      {showRaw ? <pre class="msg-raw">{p.raw}</pre> : <div class="msg-drawn">{p.drawn}</div>}
    </div>
  );
}
