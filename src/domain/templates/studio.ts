import { HeraldError, ValidationError } from '../../errors/index.js';
import type { RenderedMessage } from '../../render/index.js';
import type { BotRecord, Page, PageRequest, TemplateListFilter, TemplateRecord } from '../../store/index.js';
import { getBot } from '../bots.js';
import type { Deps } from '../deps.js';
import { isTextChannel, listBotGuilds, listGuildChannels } from '../directory/index.js';
import { MAX_TITLE_LENGTH } from './constants.js';
import { TemplateNotFoundError } from './errors.js';
import { type PreviewRequest, previewTemplate } from './preview.js';
import { approveTemplate, banTemplate, rejectTemplate, submitTemplate, unbanTemplate } from './review.js';
import { getTemplate } from './template-records.js';
import {
  createTemplate,
  deleteTemplate,
  getTemplateAnyBot,
  type SavedTemplate,
  type TemplateInput,
  updateTemplate,
} from './templates.js';

/*
 * The template studio (the console's template screens, /admin/api/template/*): the bots' own
 * template operations, for an operator (every bot's templates) or a bot session (its own bot's
 * only). A bot session asking for another bot's template or bot gets "not found", exactly as for
 * an id that never existed. No HTTP types here: the route passes the caller's scope.
 */

/** Whose templates the caller may see: one bot's (a bot session), or every bot's (botId null: an operator). */
export interface StudioScope {
  readonly botId: string | null;
  /** A bot session's bot as its session check read it in this request (saves reading it again). */
  readonly bot?: BotRecord | null;
}

/** A bot session's own bot: the record the session check read, else read now. */
const sessionBot = (deps: Deps, scope: StudioScope & { botId: string }): Promise<BotRecord> =>
  scope.bot?.id === scope.botId ? Promise.resolve(scope.bot) : getBot(deps, scope.botId);

const botNotFound = (field: string) =>
  new HeraldError('NOT_FOUND', { resource: { 'zh-CN': '机器人', 'en-US': 'bot' } }, { data: { field } });

/**
 * The bot a studio call acts for: a bot session's own (a `botId` naming another is "not found"),
 * or for an operator the bot `botId` names, which is then required.
 */
export async function studioBot(
  deps: Deps,
  scope: StudioScope,
  botId: string | undefined,
  field = 'bot_id',
): Promise<BotRecord> {
  if (scope.botId !== null) {
    if (botId !== undefined && botId !== scope.botId) throw botNotFound(field);
    return sessionBot(deps, { ...scope, botId: scope.botId });
  }
  if (botId === undefined) {
    throw new ValidationError(field, { 'zh-CN': '为必填项', 'en-US': 'is required' });
  }
  const bot = await deps.store.bots.get(botId);
  if (!bot) throw botNotFound(field);
  return bot;
}

/** A live template the caller may see, and its bot; TemplateNotFoundError otherwise. */
export async function studioTemplate(
  deps: Deps,
  scope: StudioScope,
  id: string,
): Promise<{ template: TemplateRecord; bot: BotRecord }> {
  if (scope.botId !== null) {
    const bot = await sessionBot(deps, { ...scope, botId: scope.botId });
    return { template: await getTemplate(deps, bot, id), bot };
  }
  const template = await getTemplateAnyBot(deps, id);
  const bot = await deps.store.bots.get(template.bot_id);
  // A template outlives no bot in practice (bots are not deleted); never half-answered if so.
  if (!bot) throw new TemplateNotFoundError();
  return { template, bot };
}

/** The template list: a bot session's own templates (filter.bot_id, if given, must be its bot). */
export async function listStudioTemplates(
  deps: Deps,
  scope: StudioScope,
  page: PageRequest,
  filter: TemplateListFilter,
): Promise<Page<TemplateRecord>> {
  if (scope.botId !== null) {
    if (filter.bot_id !== undefined && filter.bot_id !== scope.botId) throw botNotFound('bot_id');
    return deps.store.templates.listAnyBot(page, { ...filter, bot_id: scope.botId });
  }
  return deps.store.templates.listAnyBot(page, filter);
}

export async function createStudioTemplate(
  deps: Deps,
  scope: StudioScope,
  botId: string | undefined,
  input: TemplateInput & { title: string; content: string },
): Promise<SavedTemplate> {
  return createTemplate(deps, await studioBot(deps, scope, botId), input);
}

/** A bot's update (templates.ts: refused in review; a content change voids the review). */
export async function updateStudioTemplate(
  deps: Deps,
  scope: StudioScope,
  id: string,
  input: TemplateInput,
): Promise<SavedTemplate> {
  const { bot } = await studioTemplate(deps, scope, id);
  return updateTemplate(deps, bot, id, input);
}

/** "<title> copy", cut to the title's limit (in characters, as titles are counted). */
export function copyTitle(title: string): string {
  return [...`${title} copy`].slice(0, MAX_TITLE_LENGTH).join('');
}

/**
 * A new template of the same bot with the original's text, format and test fields, under `title`
 * (default: copyTitle). It starts as any new template does: not reviewed, not banned, at a
 * normal message's consumption (a review is of one template, not of its copies).
 */
export async function duplicateStudioTemplate(
  deps: Deps,
  scope: StudioScope,
  id: string,
  title?: string,
): Promise<SavedTemplate> {
  const { template, bot } = await studioTemplate(deps, scope, id);
  return createTemplate(deps, bot, {
    title: title ?? copyTitle(template.title),
    content: template.content,
    type: template.type,
    msgtype: template.msgtype,
    test_data: template.test_data,
    test_channel: template.test_channel,
  });
}

export async function deleteStudioTemplate(deps: Deps, scope: StudioScope, id: string): Promise<void> {
  const { bot } = await studioTemplate(deps, scope, id);
  await deleteTemplate(deps, bot, id);
}

/** Submits for review (0 not reviewed or 3 rejected -> 1 in review). */
export async function submitStudioTemplate(
  deps: Deps,
  scope: StudioScope,
  id: string,
): Promise<TemplateRecord> {
  const { bot } = await studioTemplate(deps, scope, id);
  return submitTemplate(deps, bot, id);
}

/** What an operator's review may do (review.ts has the moves). */
export type ReviewVerdict = 'approve' | 'reject' | 'ban' | 'unban';

/**
 * An operator's review of any bot's template. Approval sets the template's consumption to
 * `consumption`, or to APPROVED_TEMPLATE_CONSUMPTION when none is given; reject puts a normal
 * message's back; ban and unban leave the review state as it is.
 */
export async function reviewTemplate(
  deps: Deps,
  id: string,
  action: ReviewVerdict,
  consumption?: number,
  version?: number,
): Promise<TemplateRecord> {
  const { bot } = await studioTemplate(deps, { botId: null }, id);
  const seen = version === undefined ? {} : { version };
  switch (action) {
    case 'approve':
      return approveTemplate(deps, bot, id, {
        consumption: consumption ?? deps.config.approvedTemplateConsumption,
        ...seen,
      });
    case 'reject':
      return rejectTemplate(deps, bot, id, seen);
    case 'ban':
      return banTemplate(deps, bot, id, seen);
    case 'unban':
      return unbanTemplate(deps, bot, id);
  }
}

/** A studio render: a stored template (`id`), or inline content of the bot `bot_id` names. */
export interface StudioRenderRequest extends PreviewRequest {
  readonly bot_id?: string;
}

/**
 * The message a template would send (preview.ts), for the caller's scope: by `id`, the template
 * (which must be one the caller may see) with its bot; inline, the content rendered as the bot
 * `bot_id` names would send it (an operator must name one; a bot session's is its own).
 */
export async function renderStudioTemplate(
  deps: Deps,
  scope: StudioScope,
  req: StudioRenderRequest,
): Promise<{ message: RenderedMessage; bot: BotRecord; template: TemplateRecord | null }> {
  if (req.id !== undefined) {
    const { bot, template } = await studioTemplate(deps, scope, req.id);
    return { message: await previewTemplate(deps, bot, req), bot, template };
  }
  const bot = await studioBot(deps, scope, req.bot_id);
  return { message: await previewTemplate(deps, bot, req), bot, template: null };
}

/** A channel a test message may go to, with its server's name. */
export interface StudioChannel {
  readonly id: string;
  readonly name: string;
  readonly type: number;
  readonly guild_id: string;
  readonly guild_name: string;
}

/**
 * The text channels of the servers the bot has joined (what test_channel may name), by server
 * then channel order. Whether the bot may send in each is the send's check, as for any message.
 */
export async function listStudioChannels(
  deps: Deps,
  scope: StudioScope,
  botId: string | undefined,
): Promise<StudioChannel[]> {
  const bot = await studioBot(deps, scope, botId);
  const guilds = await listBotGuilds(deps, bot);
  const out: StudioChannel[] = [];
  for (const guild of [...guilds].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id))) {
    for (const c of await listGuildChannels(deps, guild.id)) {
      if (!isTextChannel(c)) continue;
      out.push({ id: c.id, name: c.name, type: c.type, guild_id: guild.id, guild_name: guild.name });
    }
  }
  return out;
}
