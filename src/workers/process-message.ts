import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import { DEFAULT_BOT_MESSAGE_CAPACITY, DEFAULT_BOT_MESSAGE_PER_SECOND } from '../config/defaults.js';
import { DeliveryFailedError } from '../domain/deliveries/errors/delivery-failed-error.js';
import { UpstreamRateLimitedError } from '../domain/deliveries/errors/upstream-rate-limited-error.js';
import { REASON } from '../domain/deliveries/reasons.js';
import {
  type DeliveryIds,
  describeFailure,
  markFailed,
  markRateLimited,
  markRetrying,
  type SentOutcome,
} from '../domain/deliveries/records.js';
import { isTextChannel } from '../domain/directory/index.js';
import { effectivePermissions, hasPermission, PERMISSION } from '../domain/permissions.js';
import type { PipeDeps } from '../domain/pipes/runtime.js';
import { NORMAL_MESSAGE_CONSUMPTION } from '../domain/templates/constants.js';
import { TemplateNotFoundError } from '../domain/templates/errors.js';
import { templateForSend } from '../domain/templates/index.js';
import { DependencyError, HeraldError } from '../errors/index.js';
import type { HeraldMetrics } from '../metrics/index.js';
import type { PipeJob } from '../queue/pipe-messages.js';
import type { BucketLeases } from '../ratelimit/bucket-leases.js';
import { convertCard } from '../render/cards/index.js';
import { MAX_MESSAGE_LENGTH, MessageTooLongError } from '../render/index.js';
import type { BotRecord, ChannelRecord, GuildRecord, MemberRecord, TemplateRecord } from '../store/index.js';
import type { WorkerCaches } from './caches.js';
import { templateVersionKey } from './compiled-templates.js';
import { loadPlatformContext } from './context-loader.js';
import { neutraliseGroupMentions } from './mentions.js';
import type { RenderPool } from './render-pool.js';
import type { SentLog } from './sent-log.js';
import { relayMessage } from './sinks/relay-sink.js';
import { storeMessage } from './sinks/store-sink.js';
import type { OutgoingMessage, SinkResult } from './sinks/types.js';

/** Token cost of a message sent without a template: a normal message's consumption. */
export const MESSAGE_WITHOUT_TEMPLATE_COST = NORMAL_MESSAGE_CONSUMPTION;
/**
 * A message the relay answered 429 waits what the relay says plus up to this share of it again
 * at random, so that a backlog of one bot does not wake all at the same instant. (A message
 * refused by the bot's own bucket needs no spread: it reserved a turn of its own.)
 */
export const RATE_WAIT_SPREAD = 1;
/** Shortest wait of a rate-limited message, in ms (keeps a backlog from spinning). */
export const MIN_RATE_WAIT_MS = 10;

export interface ProcessContext {
  readonly deps: PipeDeps;
  readonly caches: WorkerCaches;
  readonly metrics: HeraldMetrics;
  readonly sentLog: SentLog;
  readonly renderer: RenderPool;
  /** The bots' message buckets, with this process's leases on busy ones. */
  readonly budgets: BucketLeases;
}

/** What the checks produce: the records a message is rendered with, and what it costs. */
interface Checked {
  readonly bot: BotRecord;
  readonly template: TemplateRecord | null;
  readonly guild: GuildRecord;
  readonly channel: ChannelRecord;
  readonly botMember: MemberRecord | null;
  readonly targetMember: MemberRecord | null;
  readonly permissions: number;
  readonly cost: number;
}

/** What the render produces: a message ready to send. */
interface Prepared {
  readonly message: OutgoingMessage;
  readonly notPermissionsMention: string[];
}

const fail = (reason: string, key: ConstructorParameters<typeof DeliveryFailedError>[1], params = {}) =>
  new DeliveryFailedError(reason, key, params);

/** The bot's message budget: its own settings or the named defaults. */
export function messageLimit(bot: BotRecord) {
  return {
    capacity: bot.rate_capacity ?? DEFAULT_BOT_MESSAGE_CAPACITY,
    perSecond: bot.rate_per_second ?? DEFAULT_BOT_MESSAGE_PER_SECOND,
  };
}

export const messageBucketKey = (prefix: string, botId: string): string => `${prefix}:rl:msg:${botId}`;
/** Where a message refused by its bot's bucket records the tokens it reserved (token-bucket.lua). */
export const messageReservationKey = (prefix: string, msgId: string): string => `${prefix}:rl:paid:${msgId}`;

/** Steps 1-2: load and check. Throws DeliveryFailedError for good. */
async function check(ctx: ProcessContext, data: PipeJob): Promise<Checked> {
  const { deps, caches } = ctx;
  const [pipe, bot] = await Promise.all([
    deps.pipeRuntime.pipes.get(data.pipe_id),
    caches.bots.get(data.bot_id),
  ]);
  if (!pipe || pipe.bot_id !== data.bot_id)
    throw fail(REASON.PIPE_DELETED, 'DELIVERY_PIPE_UNAVAILABLE', { pipe_id: data.pipe_id });
  if (!pipe.enabled) throw fail(REASON.PIPE_DISABLED, 'DELIVERY_PIPE_UNAVAILABLE', { pipe_id: data.pipe_id });
  if (!bot?.enabled) throw fail(REASON.BOT_UNAVAILABLE, 'DELIVERY_BOT_UNAVAILABLE', { bot_id: data.bot_id });

  const templateId = data.template_id;
  const templatePromise = templateId
    ? caches.templates
        .get(`${bot.id}:${templateId}`)
        .then((t) => templateForSend(t, templateId))
        .catch((err: unknown) => {
          if (err instanceof TemplateNotFoundError) {
            throw fail(REASON.TEMPLATE_DELETED, 'TEMPLATE_DELETED', { id: data.template_id as string });
          }
          throw err;
        })
    : Promise.resolve(null);
  const [template, channel] = await Promise.all([templatePromise, caches.channels.get(data.channel_id)]);

  const where = { channel_id: data.channel_id };
  if (!channel) throw fail(REASON.CHANNEL_NOT_FOUND, 'DELIVERY_TARGET_INVALID', where);
  if (channel.guild_id !== pipe.guild_id || !isTextChannel(channel)) {
    throw fail(REASON.CHANNEL_NOT_TEXT, 'DELIVERY_TARGET_INVALID', where);
  }
  const [guild, botMember, targetMember] = await Promise.all([
    caches.guilds.get(channel.guild_id),
    caches.member(channel.guild_id, bot.user_id),
    data.temp_target_id ? caches.member(channel.guild_id, data.temp_target_id) : Promise.resolve(null),
  ]);
  if (!guild) throw fail(REASON.CHANNEL_NOT_FOUND, 'DELIVERY_TARGET_INVALID', where);
  const permissions = effectivePermissions({ guild, member: botMember, channel, userId: bot.user_id });
  if (!hasPermission(permissions, PERMISSION.VIEW_CHANNELS)) {
    throw fail(REASON.NO_VIEW_PERMISSION, 'DELIVERY_NO_PERMISSION', {
      ...where,
      permission: 'view channels',
    });
  }
  if (!hasPermission(permissions, PERMISSION.SEND_MESSAGES)) {
    throw fail(REASON.NO_SEND_PERMISSION, 'DELIVERY_NO_PERMISSION', {
      ...where,
      permission: 'send messages',
    });
  }
  if (data.temp_target_id && !targetMember && guild.user_id !== data.temp_target_id) {
    throw fail(REASON.TEMP_TARGET_NOT_MEMBER, 'DELIVERY_TEMP_TARGET_INVALID', {
      user_id: data.temp_target_id,
    });
  }

  return {
    bot,
    template,
    guild,
    channel,
    botMember,
    targetMember,
    permissions,
    cost: template ? template.consumption : MESSAGE_WITHOUT_TEMPLATE_COST,
  };
}

type Outcome = 'ok' | 'error';

/** Runs `work` and reports how long it took and whether it succeeded (failures count too). */
async function timed<T>(
  observe: (outcome: Outcome, seconds: number) => void,
  work: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  let outcome: Outcome = 'error';
  try {
    const result = await work();
    outcome = 'ok';
    return result;
  } finally {
    observe(outcome, (performance.now() - started) / 1000);
  }
}

/** Step 3: render. Throws a render, conversion or validation error for good. */
const render = (ctx: ProcessContext, data: PipeJob, checked: Checked): Promise<Prepared> =>
  timed(
    (outcome, seconds) => ctx.metrics.renderDuration.observe({ outcome }, seconds),
    () => renderMessage(ctx, data, checked),
  );

async function renderMessage(ctx: ProcessContext, data: PipeJob, checked: Checked): Promise<Prepared> {
  const { deps, caches } = ctx;
  const { bot, template, guild, channel, botMember, targetMember, permissions } = checked;
  let type: 9 | 10;
  let content: string;
  if (template) {
    const compiled = caches.compiledTemplate(template.id, template.version, template.content);
    const platform = await loadPlatformContext(deps, caches, compiled.platformNeeds, {
      bot,
      guild,
      channel,
      botMember,
      targetUserId: data.temp_target_id,
      targetMember,
      quoteId: data.quote,
    });
    // Decoding the input, rendering and card validation run on a render thread (render-pool.ts).
    const out = await ctx.renderer.render({
      templateKey: templateVersionKey(template.id, template.version),
      source: template.content,
      compiled,
      msgtype: template.msgtype,
      input: data.input,
      inputEncoding: data.input_encoding,
      platform,
      now: deps.now(),
    });
    type = out.type;
    content = out.content;
  } else {
    if (typeof data.input !== 'string') {
      throw fail(REASON.INPUT_INVALID, 'DELIVERY_INPUT_INVALID', { detail: 'content must be a string' });
    }
    type = data.type ?? 9;
    if (type === 10) {
      content = JSON.stringify(convertCard(data.input, 'json', deps.now()));
    } else {
      content = data.input;
      const length = [...content].length;
      if (length > MAX_MESSAGE_LENGTH) throw new MessageTooLongError(length, MAX_MESSAGE_LENGTH);
    }
  }
  const mentions = neutraliseGroupMentions(content, hasPermission(permissions, PERMISSION.MENTION_EVERYONE));
  return {
    notPermissionsMention: mentions.blocked,
    message: {
      msg_id: data.msg_id,
      bot_id: bot.id,
      author_id: bot.user_id,
      channel_id: channel.id,
      guild_id: channel.guild_id,
      type,
      content: mentions.content,
      quote: data.quote,
      temp_target_id: data.temp_target_id,
      nonce: data.nonce,
      create_at: deps.now(),
    },
  };
}

/** Step 5: hand the message to the bot's sink. */
const dispatch = (ctx: ProcessContext, bot: BotRecord, m: OutgoingMessage): Promise<SinkResult> =>
  timed(
    (outcome, seconds) => ctx.metrics.dispatchDuration.observe({ sink: bot.sink, outcome }, seconds),
    () => dispatchMessage(ctx, bot, m),
  );

async function dispatchMessage(ctx: ProcessContext, bot: BotRecord, m: OutgoingMessage): Promise<SinkResult> {
  const { deps } = ctx;
  let result: SinkResult;
  if (bot.sink === 'relay') {
    const token = (await ctx.caches.upstreamTokens.get(bot.id)) ?? '';
    if (bot.relay_url === '' || token === '') {
      throw fail(REASON.RELAY_NOT_CONFIGURED, 'DELIVERY_UPSTREAM_REJECTED', {
        status: 0,
        upstream_code: 0,
        detail: 'the bot has no relay_url or upstream_token',
      });
    }
    result = await relayMessage({ url: bot.relay_url, token }, m, { timeoutMs: deps.config.relayTimeoutMs });
  } else {
    result = await storeMessage(deps, m);
  }
  return result;
}

/**
 * A job run again after its worker died may have reached the store sink already: the message is
 * then in its channel's timeline, and is sent, whatever the checks would now say (the pipe may
 * have been disabled since, or the permission taken away). Only asked after a stall, so that
 * ordinary runs pay no extra read. (A relay cannot be asked; it gets the same nonce again.)
 */
async function sentBeforeStall(
  ctx: ProcessContext,
  job: Job<PipeJob>,
  attempt: number,
): Promise<SentOutcome | null> {
  if (job.stalledCounter === 0) return null;
  const message = await ctx.deps.store.messages.get(job.data.msg_id);
  if (!message) return null;
  return {
    sent_at: message.create_at,
    upstream_msg_id: null,
    attempts: attempt,
    not_permissions_mention: [],
  };
}

/** A failure that retrying cannot fix: a typed delivery failure or any 4xx-class Herald error. */
const isPermanent = (err: unknown): boolean =>
  err instanceof DeliveryFailedError || (err instanceof HeraldError && err.status < 500);

/**
 * One pipe message, start to end. Job control is by error type only:
 * - DelayedError after moveToDelayed: the bot's budget is empty or the relay said 429; the
 *   job waits without spending an attempt and without holding up any other bot.
 * - UnrecoverableError: a permanent failure, recorded with its reason; no retry.
 * - DependencyError (the database or Redis did not answer): passed to dependency-wait.ts, which
 *   puts the job off without spending an attempt.
 * - Any other error: BullMQ retries with the delivery backoff until attempts run out; the last
 *   attempt records the failure.
 */
export async function processPipeJob(
  ctx: ProcessContext,
  job: Job<PipeJob>,
  token: string | undefined,
): Promise<SentOutcome> {
  const { deps, metrics } = ctx;
  const data = job.data;
  const ids: DeliveryIds = {
    msg_id: data.msg_id,
    bot_id: data.bot_id,
    pipe_id: data.pipe_id,
    channel_id: data.channel_id,
  };
  const attempt = job.attemptsMade + 1;
  let notPermissionsMention: string[] = [];
  const delay = async (waitMs: number, source: 'bucket' | 'upstream') => {
    // The bucket's answer is a reserved turn, already apart from every other waiting message's;
    // an upstream 429 is not, so those waits are spread.
    const spread = source === 'upstream' ? RATE_WAIT_SPREAD * Math.random() : 0;
    const wait = Math.max(MIN_RATE_WAIT_MS, Math.ceil(waitMs * (1 + spread)));
    const at = Date.now() + wait;
    // A 429 spends no attempt, so patience bounds it: a wait that would end past
    // RELAY_RATE_LIMIT_PATIENCE_MS from when the job was queued (job.timestamp: accepted, or
    // replayed) fails the message for good instead.
    const patienceMs = deps.config.relayRateLimitPatienceMs;
    if (source === 'upstream' && at - job.timestamp > patienceMs) {
      throw fail(REASON.UPSTREAM_RATE_LIMITED, 'DELIVERY_UPSTREAM_RATE_LIMITED', {
        patience_s: patienceMs / 1000,
      });
    }
    metrics.rateLimitedWaits.inc({ bot_id: data.bot_id, source });
    // The record only shows the wait; the wait itself must hold even while the store is away.
    // (Passed on, the DependencyError would have dependency-wait.ts put the job off for its
    // short backoff instead, and the bucket's reservation let it through early: a bot's whole
    // backlog past its limit during a database outage.)
    await markRateLimited(deps, ids, at, attempt - 1).catch((err: unknown) => {
      if (!(err instanceof DependencyError)) throw err;
      deps.log.warn('rate-limited record not written: the database is away', { msg_id: data.msg_id });
    });
    await job.moveToDelayed(at, token);
    throw new DelayedError();
  };
  try {
    const earlier = await sentBeforeStall(ctx, job, attempt);
    if (earlier) {
      await ctx.sentLog.append(ids, earlier);
      return earlier;
    }
    const checked = await check(ctx, data);
    // The budget before the render: a message put off is rendered once, when its turn comes.
    // A refused message reserves its tokens and comes back when they are due (a job put off
    // before has a delay: it may hold such a reservation, which Redis is asked about first).
    const budget = await ctx.budgets.take(
      messageBucketKey(deps.config.redisPrefix, data.bot_id),
      messageLimit(checked.bot),
      checked.cost,
      { key: messageReservationKey(deps.config.redisPrefix, data.msg_id), mayHold: job.delay > 0 },
    );
    if (!budget.allowed) await delay(budget.retryAfterMs, 'bucket');
    const prepared = await render(ctx, data, checked);
    notPermissionsMention = prepared.notPermissionsMention;
    let result: SinkResult;
    try {
      result = await dispatch(ctx, checked.bot, prepared.message);
    } catch (err) {
      if (err instanceof UpstreamRateLimitedError) await delay(err.waitMs, 'upstream');
      throw err;
    }
    const sentAt = deps.now();
    const outcome: SentOutcome = {
      sent_at: sentAt,
      upstream_msg_id: result.upstream_msg_id,
      attempts: attempt,
      not_permissions_mention: notPermissionsMention,
    };
    await ctx.sentLog.append(ids, outcome);
    metrics.sent.inc({ sink: checked.bot.sink });
    metrics.acceptToSent.observe(Math.max(0, sentAt - data.accepted_at) / 1000);
    // The job's return value: what pipemsg-status answers until the record is in the store.
    return outcome;
  } catch (err) {
    if (err instanceof DelayedError) throw err;
    // The database or Redis did not answer: not the message's fault, so no attempt is spent and
    // nothing is recorded here (dependency-wait.ts puts the job off). Recording it as failed on
    // the last attempt would kill a message the relay or the store may already hold, as when the
    // sent-log append fails after a 200 from the relay.
    if (err instanceof DependencyError) throw err;
    const maxAttempts = job.opts.attempts ?? 1;
    const reason = describeFailure(err).reason;
    if (isPermanent(err) || attempt >= maxAttempts) {
      await markFailed(deps, ids, err, attempt, { ...data }, notPermissionsMention);
      metrics.failed.inc({ reason });
      deps.log.info('pipe message failed', {
        msg_id: data.msg_id,
        bot_id: data.bot_id,
        reason,
        attempts: attempt,
      });
      throw new UnrecoverableError(reason);
    }
    metrics.retries.inc({ reason });
    await markRetrying(deps, ids, err, attempt, Date.now());
    deps.log.warn('pipe message will be retried', { msg_id: data.msg_id, reason, attempt });
    throw err;
  }
}
