import type { TargetedEvent, VNode } from 'preact';
import { CARD_THEMES, COLOR_PATTERN } from '../../../src/render/cards/limits.ts';
import { lang, translator } from '../i18n.ts';
import { drawKmarkdown, drawKmarkdownInline, safeUrl } from './kmarkdown.tsx';

/**
 * A card message (the content of a type-10 message: a list of cards) drawn as the platform shows
 * it, per Herald's card schema (src/render/cards, docs/cards.md). The input is read defensively,
 * as unknown: a delivery's card passed validation, but the template editor draws whatever the
 * author wrote, so a missing field draws as nothing and an unknown module or element as a small
 * "unsupported" box. Limits are not checked here: validation reports them.
 *
 * Nothing here runs on its own: links open in a new tab without opener or referrer, return-val
 * buttons are inert, media is a link (no player, no autoplay), and images load only from http(s)
 * addresses.
 */

const t = translator({
  'zh-CN': {
    unsupportedModule: '不支持的模块：{type}',
    unsupportedElement: '不支持的元素：{type}',
    notCards: '不是卡片列表',
    imageBlocked: '图片未加载（只显示 http/https 地址）',
    returnVal: '点击会把 “{value}” 发回机器人（此处不可点击）',
    linkBlocked: '不是 http/https 链接：{value}',
    noAction: '无点击动作',
    file: '文件',
    audio: '音频',
    video: '视频',
    invite: '服务器邀请',
    ended: '已结束',
    day: '{d} 天 {hh}:{mm}:{ss}',
    hour: '{h}:{mm}:{ss}',
    second: '{s} 秒',
    endsAt: '结束于 {time}',
    startsAt: '开始于 {time}',
    countdown: '倒计时',
  },
  'en-US': {
    unsupportedModule: 'unsupported module: {type}',
    unsupportedElement: 'unsupported element: {type}',
    notCards: 'not a list of cards',
    imageBlocked: 'Image not loaded (only http/https addresses are shown)',
    returnVal: 'Sends “{value}” back to the bot (not clickable here)',
    linkBlocked: 'Not an http/https link: {value}',
    noAction: 'No click action',
    file: 'File',
    audio: 'Audio',
    video: 'Video',
    invite: 'Server invite',
    ended: 'ended',
    day: '{d} days {hh}:{mm}:{ss}',
    hour: '{h}:{mm}:{ss}',
    second: '{s} s',
    endsAt: 'ends {time}',
    startsAt: 'starts {time}',
    countdown: 'Countdown',
  },
});

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const typeName = (v: unknown): string => (isObj(v) ? str(v.type) || '?' : typeof v);

const THEMES: ReadonlySet<string> = new Set(CARD_THEMES);
const COLOR = new RegExp(COLOR_PATTERN);
const theme = (v: unknown, fallback: string): string =>
  typeof v === 'string' && THEMES.has(v) ? v : fallback;
const size = (v: unknown): 'sm' | 'lg' => (v === 'sm' ? 'sm' : 'lg');

function unsupported(text: string): VNode {
  return (
    <div class="kcard-unsupported" role="note">
      {text}
    </div>
  );
}

/** plain-text (or a bare string): the text as written, line breaks kept by CSS. */
function plainText(v: unknown): VNode {
  const content = typeof v === 'string' ? v : isObj(v) ? str(v.content) : '';
  return <span class="kcard-plain">{content}</span>;
}

/** A text element: plain-text, a bare string, or kmarkdown (as blocks unless `inline`). */
function textElement(v: unknown, inline = false): VNode {
  if (typeof v === 'string' || (isObj(v) && v.type === 'plain-text')) return plainText(v);
  if (isObj(v) && v.type === 'kmarkdown') {
    const content = str(v.content);
    return inline ? drawKmarkdownInline(content) : drawKmarkdown(content);
  }
  return unsupported(t('unsupportedElement', { type: typeName(v) }));
}

function swapToFallback(fallback: string) {
  return (e: TargetedEvent<HTMLImageElement>) => {
    const img = e.currentTarget;
    if (img.src !== fallback) img.src = fallback;
  };
}

function image(v: unknown, extraClass = ''): VNode {
  const el = isObj(v) ? v : {};
  const src = safeUrl(el.src);
  const alt = str(el.alt);
  const cls = `kcard-img kcard-img-${size(el.size)}${el.circle === true ? ' kcard-img-circle' : ''}${extraClass}`;
  if (!src) {
    return (
      <span class={`${cls} kcard-img-blocked`} role="img" aria-label={alt || t('imageBlocked')}>
        {t('imageBlocked')}
      </span>
    );
  }
  const fallback = safeUrl(el.fallbackUrl);
  return (
    <img
      class={cls}
      src={src}
      alt={alt}
      loading="lazy"
      decoding="async"
      referrerpolicy="no-referrer"
      onError={fallback ? swapToFallback(fallback) : undefined}
    />
  );
}

function button(v: unknown): VNode {
  const el = isObj(v) ? v : {};
  const cls = `kcard-btn kcard-btn-${theme(el.theme, 'primary')}`;
  const text = textElement(el.text ?? '', true);
  const value = str(el.value);
  if (el.click === 'link') {
    const href = safeUrl(value);
    if (href) {
      return (
        <a class={cls} href={href} target="_blank" rel="noopener noreferrer">
          {text}
        </a>
      );
    }
    return (
      <span class={`${cls} kcard-btn-inert`} title={t('linkBlocked', { value })}>
        {text}
      </span>
    );
  }
  const title = el.click === 'return-val' ? t('returnVal', { value }) : t('noAction');
  return (
    <span class={`${cls} kcard-btn-inert`} title={title}>
      {text}
    </span>
  );
}

function header(m: Obj): VNode {
  return <h3 class="kcard-header">{plainText(m.text)}</h3>;
}

function paragraph(p: Obj): VNode {
  const cols = typeof p.cols === 'number' && p.cols >= 1 && p.cols <= 3 ? Math.floor(p.cols) : 1;
  return (
    <div class={`kcard-paragraph kcard-cols-${cols}`}>
      {list(p.fields).map((f) => (
        <div class="kcard-field">{textElement(f)}</div>
      ))}
    </div>
  );
}

function section(m: Obj): VNode {
  const text = isObj(m.text) && m.text.type === 'paragraph' ? paragraph(m.text) : textElement(m.text ?? '');
  const acc = m.accessory;
  if (acc === undefined || acc === null) {
    return (
      <div class="kcard-section">
        <div class="kcard-section-text">{text}</div>
      </div>
    );
  }
  const accessory =
    isObj(acc) && acc.type === 'image'
      ? image(acc)
      : isObj(acc) && acc.type === 'button'
        ? button(acc)
        : unsupported(t('unsupportedElement', { type: typeName(acc) }));
  const mode = m.mode === 'left' ? 'left' : 'right';
  // The accessory comes first in the document when it is drawn first, so reading order matches.
  const parts = [
    <div class="kcard-section-text">{text}</div>,
    <div class="kcard-accessory">{accessory}</div>,
  ];
  return <div class={`kcard-section kcard-section-${mode}`}>{mode === 'left' ? parts.reverse() : parts}</div>;
}

function images(m: Obj, kind: 'image-group' | 'container'): VNode {
  const els = list(m.elements);
  const cols = kind === 'image-group' ? ` kcard-images-${Math.min(Math.max(els.length, 1), 3)}` : '';
  return (
    <div class={`kcard-${kind}${cols}`}>
      {els.map((e) =>
        isObj(e) && e.type === 'image'
          ? image(e)
          : unsupported(t('unsupportedElement', { type: typeName(e) })),
      )}
    </div>
  );
}

function actionGroup(m: Obj): VNode {
  return (
    <div class="kcard-action-group">
      {list(m.elements).map((e) =>
        isObj(e) && e.type === 'button'
          ? button(e)
          : unsupported(t('unsupportedElement', { type: typeName(e) })),
      )}
    </div>
  );
}

function context(m: Obj): VNode {
  return (
    <div class="kcard-context">
      {list(m.elements).map((e) =>
        isObj(e) && e.type === 'image' ? image(e, ' kcard-context-img') : textElement(e, true),
      )}
    </div>
  );
}

/** The last path segment of an address, as a title for a file without one. */
function fileName(src: string): string {
  const path = src.replace(/[?#].*$/s, '');
  const last = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(last) || src;
  } catch {
    return last || src;
  }
}

/** The badge of a media box: the file's extension (PDF, MP3), else the kind; no emoji font needed. */
function mediaBadge(name: string, kind: string): string {
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot + 1) : '';
  return /^[a-z0-9]{1,4}$/i.test(ext) ? ext.toUpperCase() : kind.toUpperCase();
}

/** file, audio and video: a titled box with the address as a link; nothing plays here. */
function media(m: Obj, kind: 'file' | 'audio' | 'video'): VNode {
  const src = str(m.src);
  const href = safeUrl(src);
  const title = str(m.title) || fileName(src);
  const cover =
    kind === 'audio' && m.cover !== undefined ? image({ src: m.cover, size: 'sm' }, ' kcard-cover') : null;
  return (
    <div class={`kcard-media kcard-${kind}`}>
      {cover ?? (
        <span class="kcard-media-icon" aria-hidden="true">
          {mediaBadge(fileName(src), kind)}
        </span>
      )}
      <div class="kcard-media-body">
        <div class="kcard-media-title">{title}</div>
        <div class="kcard-media-kind">{t(kind)}</div>
        {href ? (
          <a class="kcard-media-link" href={href} target="_blank" rel="noopener noreferrer">
            {src}
          </a>
        ) : (
          <span class="kcard-media-link">{src}</span>
        )}
      </div>
    </div>
  );
}

/** A 24-hour time; `hour12: false` alone draws midnight as 24:00 in en-US. */
const formatTime = (ms: number): string => new Date(ms).toLocaleString(lang.value, { hourCycle: 'h23' });

const pad = (n: number): string => String(n).padStart(2, '0');

/** The countdown's text at `now`: what the platform's ticking display would show at that moment. */
export function countdownText(mode: string, endTime: number, now: number): string {
  const left = Math.max(0, Math.floor((endTime - now) / 1000));
  if (left === 0) return t('ended');
  const d = Math.floor(left / 86400);
  const h = Math.floor(left / 3600);
  const parts = { mm: pad(Math.floor(left / 60) % 60), ss: pad(left % 60) };
  if (mode === 'day') return t('day', { d, hh: pad(h % 24), ...parts });
  if (mode === 'hour') return t('hour', { h: pad(h), ...parts });
  return t('second', { s: left });
}

/** A millisecond time a Date can hold (toISOString throws beyond ±8.64e15), else null. */
const time = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= 8.64e15 ? v : null;

function countdown(m: Obj, now: number): VNode {
  const end = time(m.endTime);
  const start = time(m.startTime);
  const mode = str(m.mode) || 'day';
  if (end === null) return unsupported(`${t('countdown')}: endTime?`);
  const notStarted = mode === 'second' && start !== null && start > now;
  return (
    <div class={`kcard-countdown kcard-countdown-${mode}`}>
      <span class="kcard-countdown-label">{t('countdown')}</span>
      <time class="kcard-countdown-value" dateTime={new Date(end).toISOString()}>
        {countdownText(mode, end, notStarted ? start : now)}
      </time>
      <span class="kcard-countdown-end">
        {notStarted ? t('startsAt', { time: formatTime(start) }) : t('endsAt', { time: formatTime(end) })}
      </span>
    </div>
  );
}

function invite(m: Obj): VNode {
  const code = str(m.code);
  const href = safeUrl(code);
  return (
    <div class="kcard-invite">
      <span class="kcard-invite-label">{t('invite')}</span>
      {href ? (
        <a class="kcard-invite-code" href={href} target="_blank" rel="noopener noreferrer">
          {code}
        </a>
      ) : (
        <span class="kcard-invite-code">{code}</span>
      )}
    </div>
  );
}

function module(m: unknown, now: number): VNode {
  if (!isObj(m)) return unsupported(t('unsupportedModule', { type: typeName(m) }));
  switch (m.type) {
    case 'header':
      return header(m);
    case 'section':
      return section(m);
    case 'image-group':
      return images(m, 'image-group');
    case 'container':
      return images(m, 'container');
    case 'action-group':
      return actionGroup(m);
    case 'context':
      return context(m);
    case 'divider':
      return <hr class="kcard-divider" />;
    case 'file':
    case 'audio':
    case 'video':
      return media(m, m.type);
    case 'countdown':
      return countdown(m, now);
    case 'invite':
      return invite(m);
    default:
      return unsupported(t('unsupportedModule', { type: typeName(m) }));
  }
}

function card(c: unknown, now: number): VNode {
  if (!isObj(c) || c.type !== 'card') return unsupported(t('unsupportedModule', { type: typeName(c) }));
  const th = theme(c.theme, 'primary');
  // The colour is checked against the schema's pattern before it reaches a style property.
  const color = th !== 'invisible' && typeof c.color === 'string' && COLOR.test(c.color) ? c.color : null;
  return (
    <div
      class={`kcard kcard-theme-${th} kcard-size-${size(c.size)}`}
      style={color ? { borderLeftColor: color } : undefined}
    >
      {list(c.modules).map((m) => module(m, now))}
    </div>
  );
}

/**
 * Draws a card message (already parsed from JSON). Eager, like the KMarkdown drawing, so a
 * caller can catch a failure and show the raw text. `now` (ms) fixes the countdowns' text.
 */
export function drawCards(cards: unknown, now: number = Date.now()): VNode {
  if (!Array.isArray(cards)) return <div class="kcards">{unsupported(t('notCards'))}</div>;
  return <div class="kcards">{cards.map((c) => card(c, now))}</div>;
}

/** A card message as a component: the template editor's preview draws with this. */
export function CardView(props: { cards: unknown; now?: number }): VNode {
  return drawCards(props.cards, props.now ?? Date.now());
}
