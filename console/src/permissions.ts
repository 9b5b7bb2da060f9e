import type { Lang } from './i18n.ts';

/*
 * The permission bits the platform documents (platform-facts.md, "Permissions"; the server's
 * PERMISSION constant in src/domain/permissions.ts), as the console's checkboxes draw them.
 * Masks are JS numbers up to 2^53 - 1: JS's `|`, `&` and `~` work on 32 bits only, so these
 * helpers split a mask into its high and low halves as the server does. Bits the console has no
 * name for are kept untouched when a box is ticked or cleared.
 */

export type PermissionKey = 'administrator' | 'view_channels' | 'send_messages' | 'mention_everyone';

export interface PermissionBit {
  readonly key: PermissionKey;
  /** Bit number (value = 2^bit). */
  readonly bit: number;
  readonly value: number;
  readonly label: Readonly<Record<Lang, string>>;
  readonly hint: Readonly<Record<Lang, string>>;
}

export const PERMISSION_BITS: readonly PermissionBit[] = [
  {
    key: 'administrator',
    bit: 0,
    value: 1,
    label: { 'zh-CN': '管理员', 'en-US': 'Administrator' },
    hint: {
      'zh-CN': '拥有全部权限，跳过频道覆盖',
      'en-US': 'Every permission; channel overwrites are skipped',
    },
  },
  {
    key: 'view_channels',
    bit: 11,
    value: 2048,
    label: { 'zh-CN': '查看频道', 'en-US': 'View channels' },
    hint: { 'zh-CN': '看到频道及其消息', 'en-US': 'See the channel and its messages' },
  },
  {
    key: 'send_messages',
    bit: 12,
    value: 4096,
    label: { 'zh-CN': '发送消息', 'en-US': 'Send messages' },
    hint: { 'zh-CN': '在频道中发送消息', 'en-US': 'Post messages in the channel' },
  },
  {
    key: 'mention_everyone',
    bit: 17,
    value: 131072,
    label: { 'zh-CN': '提及全体成员', 'en-US': 'Mention everyone' },
    hint: { 'zh-CN': '使用 @全体成员 和 @在线成员', 'en-US': 'Use @everyone and @here' },
  },
];

/** Every bit a mask can hold (bits 0 to 52), as the server's ALL_PERMISSIONS. */
export const ALL_PERMISSIONS = Number.MAX_SAFE_INTEGER;
/** The everyone role's mask the server gives a new guild: view channels + send messages. */
export const DEFAULT_EVERYONE_PERMISSIONS = 2048 + 4096;

const TWO_32 = 2 ** 32;
const hi = (m: number): number => Math.floor(m / TWO_32) >>> 0;
const lo = (m: number): number => m >>> 0;
const join = (h: number, l: number): number => (h >>> 0) * TWO_32 + (l >>> 0);

export const maskOr = (a: number, b: number): number => join(hi(a) | hi(b), lo(a) | lo(b));
export const maskAnd = (a: number, b: number): number => join(hi(a) & hi(b), lo(a) & lo(b));
export const maskAndNot = (a: number, b: number): number => join(hi(a) & ~hi(b), lo(a) & ~lo(b));

/** Whether `mask` holds every bit of `value` (no administrator shortcut: what is stored). */
export const hasBits = (mask: number, value: number): boolean => maskAnd(mask, value) === value;

/** `mask` with `value`'s bits set or cleared; other bits unchanged. */
export const withBits = (mask: number, value: number, on: boolean): number =>
  on ? maskOr(mask, value) : maskAndNot(mask, value);

const NAMED_MASK = PERMISSION_BITS.reduce((m, b) => maskOr(m, b.value), 0);

/** The bits of `mask` the console has no name for (kept as they are, shown as a number). */
export const unnamedBits = (mask: number): number => maskAndNot(mask, NAMED_MASK);

/** The named bits `mask` holds, in table order. */
export const namedBitsOf = (mask: number): PermissionBit[] =>
  PERMISSION_BITS.filter((b) => hasBits(mask, b.value));

/** A mask as words: its named bits joined, plus the unnamed remainder as a number. */
export function describeMask(mask: number, lang: Lang): string {
  if (mask === ALL_PERMISSIONS) return lang === 'zh-CN' ? '全部权限' : 'all permissions';
  const names = namedBitsOf(mask).map((b) => b.label[lang]);
  const rest = unnamedBits(mask);
  if (rest !== 0) names.push(lang === 'zh-CN' ? `其他位 ${rest}` : `other bits ${rest}`);
  if (names.length === 0) return lang === 'zh-CN' ? '无' : 'none';
  return names.join(lang === 'zh-CN' ? '、' : ', ');
}

/** One bit of a channel overwrite: inherited from the server, allowed, or denied. */
export type OverwriteState = 'inherit' | 'allow' | 'deny';

export interface OverwriteMasks {
  readonly allow: number;
  readonly deny: number;
}

/** What an overwrite does to one bit. A bit both allowed and denied is allowed (allow applies last). */
export function overwriteState(o: OverwriteMasks, value: number): OverwriteState {
  if (hasBits(o.allow, value)) return 'allow';
  if (hasBits(o.deny, value)) return 'deny';
  return 'inherit';
}

/** The overwrite with one bit set to `state`; other bits (named or not) unchanged. */
export function setOverwriteState(o: OverwriteMasks, value: number, state: OverwriteState): OverwriteMasks {
  return {
    allow: withBits(o.allow, value, state === 'allow'),
    deny: withBits(o.deny, value, state === 'deny'),
  };
}
