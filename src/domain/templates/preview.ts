import { HeraldError, ValidationError } from '../../errors/index.js';
import { type PlatformContext, renderMessage, type User } from '../../render/index.js';
import type { BotRecord, UserRecord } from '../../store/index.js';
import type { Deps } from '../deps.js';
import { MSGTYPE } from './constants.js';
import { getTemplateForSend } from './templates.js';

/** The message a template produces, exactly as it would be dispatched (platform type 9 or 10). */
export interface RenderedMessage {
  readonly type: 9 | 10;
  readonly content: string;
}

/** What to preview: a stored template (`id`) or inline `content` + `msgtype`. */
export interface PreviewRequest {
  readonly id?: string;
  readonly content?: string;
  readonly msgtype?: number;
  /** The input (`data`): a JSON value, or JSON text when `dataIsText`. Default: test_data. */
  readonly data?: unknown;
  readonly dataIsText?: boolean;
  /** Default: the template's test_channel. */
  readonly channel_id?: string;
}

const mustBeJson = (field: string) =>
  new ValidationError(field, { 'zh-CN': '必须是 JSON 文本', 'en-US': 'must be JSON text' });

/** Parses JSON text given as a template input; '' means "no input" ({}). */
export function parseJsonText(text: string, field: string): unknown {
  if (text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw mustBeJson(field);
  }
}

/** test_data must be JSON text when it is given ('' clears it). */
export function checkTestData(text: string | undefined): void {
  if (text !== undefined && text !== '') parseJsonText(text, 'test_data');
}

const platformUser = (u: UserRecord): User => ({
  id: u.id,
  username: u.username,
  nickname: u.nickname,
  identify_num: u.identify_num,
  online: u.online,
  bot: u.bot,
  status: u.status,
  avatar: u.avatar,
  vip_avatar: u.vip_avatar,
  mobile_verified: u.mobile_verified,
  roles: [],
});

/**
 * The platform context of a preview: the bot is the sender (as when a pipe sends). The channel
 * is not resolved yet: the directory (guilds, channels) is not in place, so `channelId` is
 * accepted and ignored and PLATFORM.getChannel()/getGuild() answer null in a preview.
 */
export async function previewContext(
  deps: Deps,
  bot: BotRecord,
  _channelId: string,
): Promise<PlatformContext> {
  const user = await deps.store.users.get(bot.user_id);
  return { sender: user ? platformUser(user) : null };
}

/** Renders one template source as it would be sent. Throws the render's precise error. */
export async function renderSource(
  deps: Deps,
  bot: BotRecord,
  source: { content: string; msgtype: number },
  data: unknown,
  channelId: string,
): Promise<RenderedMessage> {
  const platform = await previewContext(deps, bot, channelId);
  return renderMessage({ content: source.content, msgtype: source.msgtype }, data, platform, {
    now: deps.now(),
  });
}

/**
 * The save-time check of a template with test data: rendered with it and the result validated.
 * A problem is returned (as the error it would be), never thrown: a template's output depends on
 * its input, so a bad test render does not refuse the save.
 */
export async function testRenderWarnings(
  deps: Deps,
  bot: BotRecord,
  t: { content: string; msgtype: number; test_data: string; test_channel: string },
): Promise<HeraldError[]> {
  if (t.test_data === '') return [];
  try {
    await renderSource(deps, bot, t, parseJsonText(t.test_data, 'test_data'), t.test_channel);
    return [];
  } catch (err) {
    if (err instanceof HeraldError && err.status < 500) return [err];
    throw err;
  }
}

/** POST /template/render: a stored template (by id) or inline content, with data and channel. */
export async function previewTemplate(
  deps: Deps,
  bot: BotRecord,
  req: PreviewRequest,
): Promise<RenderedMessage> {
  let source: { content: string; msgtype: number };
  let testData = '';
  let testChannel = '';
  if (req.id !== undefined) {
    // Exactly what a send would do: a banned template is refused here too.
    const t = await getTemplateForSend(deps, bot, req.id);
    source = { content: t.content, msgtype: t.msgtype };
    testData = t.test_data;
    testChannel = t.test_channel;
  } else if (req.content !== undefined) {
    source = { content: req.content, msgtype: req.msgtype ?? MSGTYPE.KMD };
  } else {
    throw new ValidationError('id', {
      'zh-CN': '为必填项（或提供 content）',
      'en-US': 'is required (or give content)',
    });
  }
  let data: unknown;
  if (req.data === undefined) data = parseJsonText(testData, 'test_data');
  else if (req.dataIsText) data = parseJsonText(String(req.data), 'data');
  else data = req.data;
  return renderSource(deps, bot, source, data, req.channel_id ?? testChannel);
}
