import { NotFoundError, ValidationError } from '../../errors/index.js';
import { withRecordLock } from '../../locks/record-lock.js';
import { lockKey as recordLockKey } from '../../redis/keys.js';
import { DEFAULT_OVERFLOW } from '../../render/index.js';
import {
  type BotRecord,
  newNumericId,
  type Page,
  type PageRequest,
  type PipeChanges,
  type PipeEventSource,
  type PipeGrouping,
  type PipeOverflow,
  type PipeRateLimit,
  type PipeRecord,
  type PipeRoutes,
} from '../../store/index.js';
import { getBot } from '../bots.js';
import { getChannel, getMember, isTextChannel } from '../directory/index.js';
import { clearCaptures } from './captures.js';
import { checkGrouping } from './grouping.js';
import { announcePipeChange } from './pipe-cache.js';
import { issuePipeToken } from './pipe-tokens.js';
import {
  checkEventSource,
  checkEventSourceNotSignature,
  checkRoutes,
  checkRoutingShape,
} from './routing/routing.js';
import type { PipeDeps } from './runtime.js';
import { newSignature, type SignatureSetting } from './signatures/manage.js';

export interface PipeInput {
  readonly title?: string;
  readonly channel_id?: string;
  /** null unbinds the template. */
  readonly template_id?: string | null;
  readonly enabled?: boolean;
  /** null: back to the configured default. */
  readonly rate_limit?: PipeRateLimit | null;
  /** Whether the pipe keeps its latest accepted payloads; false also deletes those it kept. */
  readonly capture?: boolean;
  /** What a message over the platform's limits becomes (render/fit.ts); absent: split on create. */
  readonly overflow?: PipeOverflow;
  /** Where the event is read (routing/routing.ts); null: no routing. */
  readonly event_source?: PipeEventSource | null;
  /** Event -> template (null: answered, not posted); replaces the pipe's routes. null: none. */
  readonly routes?: PipeRoutes | null;
  /** Alert-storm control (grouping.ts); null: none. */
  readonly grouping?: PipeGrouping | null;
}

export interface NewPipeInput extends PipeInput {
  readonly bot_id: string;
  readonly title: string;
  readonly channel_id: string;
  /** The preset that made it (routing/presets.ts), recorded with the pipe. */
  readonly preset?: string;
  /** The signature senders must send (checked: signatures/manage.ts); absent: none. */
  readonly signature?: SignatureSetting;
}

/** A pipe as operators see it: the stored record plus the limit in force. */
export interface PipeView extends PipeRecord {
  readonly rate_limit_in_force: PipeRateLimit;
}

export interface IssuedPipeToken {
  /** Shown once; only its hash is stored. */
  readonly access_token: string;
  /** The callback URL a sender pastes: the endpoint with the token in the query. */
  readonly url: string;
}

export interface CreatedPipe extends IssuedPipeToken {
  readonly pipe: PipeView;
  /** A signed pipe's signing secret, shown once (docs/pipes.md, "Verified senders"). */
  readonly signing_secret?: string;
}

export function pipeView(deps: PipeDeps, pipe: PipeRecord): PipeView {
  const d = deps.pipeRuntime.defaultLimit;
  return {
    ...pipe,
    rate_limit_in_force: pipe.rate_limit ?? { capacity: d.capacity, per_second: d.perSecond },
  };
}

const callbackUrl = (deps: PipeDeps, token: string): string =>
  `${deps.config.publicUrl}/api/v3/message/send-pipemsg?access_token=${encodeURIComponent(token)}`;

const lockKey = (deps: PipeDeps, id: string): string => recordLockKey(deps.config.redisPrefix, 'pipe', id);

/** A pipe's channel is a text channel of a guild its bot has joined; answers the guild id. */
async function checkChannel(deps: PipeDeps, bot: BotRecord, channelId: string): Promise<string> {
  const channel = await getChannel(deps, channelId);
  if (!channel || !isTextChannel(channel)) {
    throw new ValidationError('channel_id', {
      'zh-CN': '必须是一个文字频道',
      'en-US': 'must be a text channel',
    });
  }
  if (!(await getMember(deps, channel.guild_id, bot.user_id))) {
    throw new ValidationError('channel_id', {
      'zh-CN': '频道所在的服务器机器人尚未加入',
      'en-US': "must be in a server the pipe's bot has joined",
    });
  }
  return channel.guild_id;
}

/**
 * What createPipe checks of a new pipe's bot and channel, for a caller that must know before
 * making anything else (a preset makes templates first): 404 for an unknown bot, 400 naming
 * `channel_id`.
 */
export async function checkNewPipeChannel(deps: PipeDeps, botId: string, channelId: string): Promise<void> {
  await checkChannel(deps, await getBot(deps, botId), channelId);
}

/** A pipe's template belongs to the pipe's bot (and is not deleted). */
async function checkTemplate(
  deps: PipeDeps,
  bot: BotRecord,
  templateId: string,
  field: 'template_id' | 'routes' = 'template_id',
): Promise<void> {
  if (!(await deps.store.templates.get(bot, templateId))) {
    throw new ValidationError(field, {
      'zh-CN': field === 'routes' ? `模板 ${templateId} 不是该机器人的模板` : '必须是该机器人的模板',
      'en-US':
        field === 'routes'
          ? `template ${templateId} is not a template of the pipe's bot`
          : "must be a template of the pipe's bot",
    });
  }
}

/**
 * Routing settings that hang together (routing/routing.ts), and templates of the bot in every
 * route; `newRoutes`: the routes given in this call (only theirs are looked up).
 */
async function checkRouting(
  deps: PipeDeps,
  bot: BotRecord,
  pipe: Pick<PipeRecord, 'event_source' | 'routes' | 'template_id'>,
  newRoutes: PipeRoutes | null,
): Promise<void> {
  const templateIds = newRoutes === null ? [] : checkRoutes(newRoutes);
  checkRoutingShape(pipe);
  for (const id of templateIds) await checkTemplate(deps, bot, id, 'routes');
}

export async function createPipe(deps: PipeDeps, input: NewPipeInput): Promise<CreatedPipe> {
  const bot = await getBot(deps, input.bot_id);
  const guildId = await checkChannel(deps, bot, input.channel_id);
  const templateId = input.template_id ?? null;
  if (templateId !== null) await checkTemplate(deps, bot, templateId);
  const eventSource = input.event_source == null ? null : checkEventSource(input.event_source);
  const routes = input.routes ?? {};
  await checkRouting(deps, bot, { event_source: eventSource, routes, template_id: templateId }, routes);
  checkEventSourceNotSignature(eventSource, input.signature?.header, 'event_source');
  const grouping = checkGrouping(input.grouping ?? null);
  const id = newNumericId();
  const { token, hash } = issuePipeToken(id);
  const signing = input.signature ? newSignature(deps, id, input.signature) : { stored: null, secret: null };
  const pipe = await deps.store.pipes.create({
    id,
    bot_id: bot.id,
    title: input.title,
    channel_id: input.channel_id,
    guild_id: guildId,
    template_id: templateId,
    rate_limit: input.rate_limit ?? null,
    capture: input.capture ?? true,
    overflow: input.overflow ?? DEFAULT_OVERFLOW,
    event_source: eventSource,
    routes,
    preset: input.preset ?? null,
    grouping,
    token_hash: hash,
    signature: signing.stored,
    now: deps.now(),
  });
  // A process that was asked for this id before it existed may hold "no such pipe"; this one
  // drops it inside announcePipeChange, before the call answers.
  await announcePipeChange(deps, id);
  const created = { pipe: pipeView(deps, pipe), access_token: token, url: callbackUrl(deps, token) };
  return signing.secret === null ? created : { ...created, signing_secret: signing.secret };
}

export async function getPipe(deps: PipeDeps, id: string): Promise<PipeRecord> {
  const pipe = await deps.store.pipes.get(id);
  if (!pipe) throw new NotFoundError('pipe');
  return pipe;
}

/** A pipe as a studio caller may see it: any pipe (botId null, operators) or one of its bot's (else not found). */
export async function getPipeInScope(deps: PipeDeps, id: string, botId: string | null): Promise<PipeRecord> {
  const pipe = await getPipe(deps, id);
  if (botId !== null && pipe.bot_id !== botId) throw new NotFoundError('pipe');
  return pipe;
}

/**
 * Changes a pipe under its record lock (FerretDB v1 updates are not atomic), then drops it from
 * every web process's cache before answering.
 */
export async function updatePipe(deps: PipeDeps, id: string, input: PipeInput): Promise<PipeRecord> {
  return withRecordLock(deps.redis, lockKey(deps, id), async () => {
    const current = await getPipe(deps, id);
    const changes: { -readonly [K in keyof PipeChanges]: PipeChanges[K] } = {
      title: input.title,
      enabled: input.enabled,
      rate_limit: input.rate_limit,
      capture: input.capture,
      overflow: input.overflow,
    };
    if (input.grouping !== undefined) changes.grouping = checkGrouping(input.grouping);
    const routing =
      input.template_id !== undefined || input.event_source !== undefined || input.routes !== undefined;
    if (input.channel_id !== undefined || routing) {
      const bot = await getBot(deps, current.bot_id);
      if (input.channel_id !== undefined) {
        changes.channel_id = input.channel_id;
        changes.guild_id = await checkChannel(deps, bot, input.channel_id);
      }
      if (input.template_id !== undefined) {
        if (input.template_id !== null) await checkTemplate(deps, bot, input.template_id);
        changes.template_id = input.template_id;
      }
      if (input.event_source !== undefined) {
        changes.event_source = input.event_source === null ? null : checkEventSource(input.event_source);
        checkEventSourceNotSignature(changes.event_source, current.signature.header, 'event_source');
      }
      if (input.routes !== undefined) changes.routes = input.routes ?? {};
      if (routing) {
        await checkRouting(
          deps,
          bot,
          {
            event_source: changes.event_source === undefined ? current.event_source : changes.event_source,
            routes: changes.routes ?? current.routes,
            template_id: changes.template_id === undefined ? current.template_id : changes.template_id,
          },
          changes.routes ?? null,
        );
      }
    }
    const updated = await deps.store.pipes.update(id, changes, deps.now());
    if (!updated) throw new NotFoundError('pipe');
    await announcePipeChange(deps, id);
    // Off means nothing kept: after the change is in force, so no process captures again.
    if (input.capture === false) await clearCaptures(deps, id);
    return updated;
  });
}

/** Issues a new token; the old one stops working in every web process before this returns. */
export async function rotatePipeToken(deps: PipeDeps, id: string): Promise<IssuedPipeToken> {
  return withRecordLock(deps.redis, lockKey(deps, id), async () => {
    const { token, hash } = issuePipeToken(id);
    if (!(await deps.store.pipes.setTokenHash(id, hash, deps.now()))) throw new NotFoundError('pipe');
    await announcePipeChange(deps, id);
    return { access_token: token, url: callbackUrl(deps, token) };
  });
}

/**
 * Deletes a pipe, then its captures, once no process accepts its messages any more. The pipe
 * is gone even if Redis fails the captures' deletion (logged): they expire within
 * CAPTURE_TTL_S, and no one can read them meanwhile (pipe ids are never reused).
 */
export async function deletePipe(deps: PipeDeps, id: string): Promise<void> {
  await withRecordLock(deps.redis, lockKey(deps, id), async () => {
    if (!(await deps.store.pipes.delete(id))) throw new NotFoundError('pipe');
    await announcePipeChange(deps, id);
  });
  await clearCaptures(deps, id).catch((err: unknown) =>
    deps.log.warn('captures of a deleted pipe not deleted', {
      pipe_id: id,
      error: err instanceof Error ? err.message : String(err),
    }),
  );
}

export function listPipes(
  deps: PipeDeps,
  page: PageRequest,
  filter: { readonly bot_id?: string } = {},
): Promise<Page<PipeRecord>> {
  return deps.store.pipes.list(page, filter);
}
