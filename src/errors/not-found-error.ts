import type { LocalizedText } from './catalogue.js';
import { HeraldError } from './herald-error.js';

/** What a NotFoundError names, in each language (the catalogue's words: 机器人, 管道, 频道...). */
const RESOURCES = {
  bot: { 'zh-CN': '机器人', 'en-US': 'bot' },
  channel: { 'zh-CN': '频道', 'en-US': 'channel' },
  guild: { 'zh-CN': '服务器', 'en-US': 'guild' },
  'guild member': { 'zh-CN': '服务器成员', 'en-US': 'guild member' },
  message: { 'zh-CN': '消息', 'en-US': 'message' },
  pipe: { 'zh-CN': '管道', 'en-US': 'pipe' },
  user: { 'zh-CN': '用户', 'en-US': 'user' },
} as const satisfies Record<string, LocalizedText>;

export type Resource = keyof typeof RESOURCES;

/** A record that does not exist, or that belongs to someone else (we never say which). */
export class NotFoundError extends HeraldError {
  override readonly name = 'NotFoundError';
  constructor(resource: Resource) {
    super('NOT_FOUND', { resource: RESOURCES[resource] });
  }
}
