import { HeraldError, ValidationError } from '../../errors/index.js';
import {
  compileTemplate,
  type Guild,
  type Overflow,
  type PlatformContext,
  type PlatformNeeds,
  parseJsonData,
  parseJsonDataMember,
  type RenderedMessage,
  renderMessage,
} from '../../render/index.js';
import type { BotRecord, ChannelRecord, GuildRecord } from '../../store/index.js';
import type { Deps } from '../deps.js';
import {
  getChannel,
  getMember,
  getUser,
  getUsers,
  listBotGuilds,
  listGuildChannels,
  overwriteUserIds,
  toPlatformChannel,
  toPlatformGuild,
  toPlatformUser,
} from '../directory/index.js';
import { MSGTYPE } from './constants.js';
import { getTemplateForSend } from './template-records.js';

/** The message a template produces, exactly as it would be dispatched (platform type 9 or 10). */
export type { RenderedMessage };

/** What to preview: a stored template (`id`) or inline `content` + `msgtype`. */
export interface PreviewRequest {
  readonly id?: string;
  readonly content?: string;
  readonly msgtype?: number;
  /**
   * The input (`data`): a JSON value, or JSON text when `dataIsText`. Default: test_data. A value
   * that came in a JSON request body is best given as `bodyText`, the body's own text: its
   * `data` member is then read from it with a send's key order, which the parsed value lost.
   */
  readonly data?: unknown;
  readonly dataIsText?: boolean;
  readonly bodyText?: string;
  /** Default: the template's test_channel. */
  readonly channel_id?: string;
}

const mustBeJson = (field: string) =>
  new ValidationError(field, { 'zh-CN': '必须是 JSON 文本', 'en-US': 'must be JSON text' });

/**
 * Parses JSON text given as a template input, as a pipe message's body is parsed when it is
 * sent (PHP's key order: parseJsonData); '' means "no input" ({}).
 */
export function parseJsonText(text: string, field: string): unknown {
  if (text === '') return {};
  try {
    return parseJsonData(text);
  } catch {
    throw mustBeJson(field);
  }
}

/** test_data must be JSON text when it is given ('' clears it). */
export function checkTestData(text: string | undefined): void {
  if (text !== undefined && text !== '') parseJsonText(text, 'test_data');
}

/** A channel the preview cannot use: unknown, or in a guild the bot has not joined (never said which). */
const channelNotFound = (field: string) =>
  new HeraldError('NOT_FOUND', { resource: { 'zh-CN': '频道', 'en-US': 'channel' } }, { data: { field } });

/** A guild object with its channels (and the users their overwrites name). */
async function platformGuild(deps: Deps, guild: GuildRecord): Promise<Guild> {
  const channels = await listGuildChannels(deps, guild.id);
  return toPlatformGuild(guild, channels, await getUsers(deps, overwriteUserIds(channels)));
}

/**
 * The platform context of a render, as a send from the bot into `channelId` would see it: the
 * bot is the sender (as when a pipe sends); the channel and its guild come from the directory;
 * PLATFORM.getGuild(id) answers for the guilds the bot has joined. A preview has no target user
 * and no quote. Only what the template can ask for (`needs`) is loaded. An unknown channel, or
 * one outside the bot's guilds, is "channel not found" naming `field`; '' means no channel.
 */
export async function previewContext(
  deps: Deps,
  bot: BotRecord,
  channelId: string,
  needs: PlatformNeeds,
  field = 'channel_id',
): Promise<PlatformContext> {
  let channel: ChannelRecord | null = null;
  let guilds: GuildRecord[] = [];
  if (channelId !== '') {
    channel = await getChannel(deps, channelId);
    guilds = await listBotGuilds(deps, bot);
    if (!channel || !guilds.some((g) => g.id === channel?.guild_id)) throw channelNotFound(field);
  } else if (needs.guildById) {
    guilds = await listBotGuilds(deps, bot);
  }
  const guild = channel ? guilds.find((g) => g.id === channel?.guild_id) : undefined;
  const ctx: PlatformContext = { guild: null, channel: null, sender: null, targetUser: null, quote: null };
  if (needs.sender) {
    const user = await getUser(deps, bot.user_id);
    const member = user && guild ? await getMember(deps, guild.id, user.id) : null;
    ctx.sender = user ? toPlatformUser(user, member) : null;
  }
  if (channel && needs.channel) {
    const users = await getUsers(deps, overwriteUserIds([channel]));
    ctx.channel = toPlatformChannel(channel, users);
  }
  if (guild && needs.guild) ctx.guild = await platformGuild(deps, guild);
  if (needs.guildById) {
    const joined: Record<string, Guild> = {};
    for (const g of guilds) joined[g.id] = await platformGuild(deps, g);
    ctx.joinedGuilds = joined;
  }
  return ctx;
}

/**
 * Renders one template source as it would be sent. Throws the render's precise error. A message
 * over the platform's limits fails (`overflow` fail, a preview's: the author sees the limit) or
 * is fitted (render/fit.ts).
 */
export async function renderSource(
  deps: Deps,
  bot: BotRecord,
  source: { content: string; msgtype: number },
  data: unknown,
  channelId: string,
  channelField = 'channel_id',
  overflow: Overflow = 'fail',
): Promise<RenderedMessage> {
  const compiled = compileTemplate(source.content);
  const platform = await previewContext(deps, bot, channelId, compiled.platformNeeds, channelField);
  return renderMessage({ compiled, msgtype: source.msgtype }, data, platform, { now: deps.now() }, overflow);
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
    await renderSource(deps, bot, t, parseJsonText(t.test_data, 'test_data'), t.test_channel, 'test_channel');
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
  overflow: Overflow = 'fail',
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
  else if (req.bodyText !== undefined) data = parseJsonDataMember(req.bodyText, 'data');
  else data = req.data;
  if (req.channel_id !== undefined)
    return renderSource(deps, bot, source, data, req.channel_id, undefined, overflow);
  return renderSource(deps, bot, source, data, testChannel, 'test_channel', overflow);
}
