import { setTimeout as sleep } from 'node:timers/promises';
import type { Job } from 'bullmq';
import { DEFAULT_BOT_MESSAGE_CAPACITY, DEFAULT_BOT_MESSAGE_PER_SECOND } from '../../config/defaults.js';
import { afterFailure, rateWait } from '../../domain/deliveries/lifecycle.js';
import { REASON } from '../../domain/deliveries/reasons.js';
import { countIn, countOutcome } from '../../domain/deliveries/recent-counts.js';
import {
  asDeliveryFailure,
  type DeliveryIds,
  describeFailure,
  jobIds,
  keptRendered,
  markFailed,
  markRateLimited,
  markRetrying,
  type SentOutcome,
} from '../../domain/deliveries/records.js';
import { noteWait } from '../../domain/deliveries/wait-notes.js';
import {
  type DeliveryError,
  DependencyError,
  type HeraldError,
  type ParamValue,
} from '../../errors/index.js';
import type { PipeJob } from '../../queue/pipe-messages.js';
import { type BucketLimit, type BucketResult, rememberPayment } from '../../ratelimit/token-bucket.js';
import { messageBucketKey, messageReservationKey } from '../../redis/keys.js';
import { botSlotTag, queueSlotTag } from '../../redis/partitions.js';
import type { BotRecord, DeliveryPart, StoredRendered } from '../../store/index.js';
import { endDead, putOff, retryLater } from '../job-control.js';
import type { ProcessContext } from '../process-context.js';
import { relayVerdict } from '../sinks/relay-sink.js';
import { JobTakenOverError, WorkerClosingError } from '../worker-closing-error.js';
import { plannedRetries, retryDelayMs } from './backoff.js';
import { fail } from './delivery-failure.js';
import { dropDigestItems, type GroupSinkResult, runGrouped, type SendPlan, takeDigest } from './grouping.js';
import { type Checked, check } from './message-checks.js';
import { dispatch, senderOf } from './message-dispatch.js';
import { allSent, PartProgress } from './message-parts.js';
import { render } from './message-render.js';

/**
 * A message the relay answered 429 waits what the relay says plus up to this share of it again
 * at random, so that a backlog of one bot does not wake all at the same instant. (A message
 * refused by the bot's own bucket needs no spread: it reserved a turn of its own.)
 */
export const RATE_WAIT_SPREAD = 1;
/** Shortest wait of a rate-limited message, in ms (keeps a backlog from spinning). */
export const MIN_RATE_WAIT_MS = 10;

/**
 * How much refill a send may come after the moment its tokens count for, in tokens: the slack
 * of the promise `sends <= capacity + rate x t` (at 2 per second, 10 ms).
 */
export const SEND_SLACK_TOKENS = 0.02;
/**
 * A message put off for its turn comes back this much before it, at most (ms), or two tokens'
 * refill before it on a faster bot, and waits the rest in the worker: so that its check and
 * render are done when its turn comes, and it is sent then, not later. Bounded so that one
 * bot's backlog holds few job slots waiting.
 */
export const TURN_LEAD_MS = 500;
const TURN_LEAD_TOKENS = 2;

/** How long before its turn a put-off message of a bot with `limit` comes back, in ms. */
const turnLeadMs = (limit: { perSecond: number }): number =>
  Math.min(TURN_LEAD_MS, (TURN_LEAD_TOKENS * 1000) / limit.perSecond);

/** Tokens taken for a message, and until when (performance.now()) a send still counts as made then. */
interface Payment {
  readonly at: number;
  readonly validMs: number;
}

/**
 * A payment `budget` allowed. Tokens taken at one moment and spent on a send later are the same
 * as tokens taken at the send as long as the bucket, without them, would not have filled up
 * meanwhile (its refill past capacity is lost, and the send would come on top of a full burst):
 * that is until its count of sends is full (not its line's, which reservations keep lower) less
 * the cost's own refill time, plus the slack.
 */
function paymentOf(budget: BucketResult, limit: BucketLimit, cost: number): Payment {
  const taken = Math.min(cost, limit.capacity);
  return {
    at: performance.now(),
    validMs:
      (budget.sendableFullMs ?? budget.resetMs) - ((taken - SEND_SLACK_TOKENS) * 1000) / limit.perSecond,
  };
}

/** The bot's message budget: its own settings or the named defaults. */
export function messageLimit(bot: BotRecord) {
  return {
    capacity: bot.rate_capacity ?? DEFAULT_BOT_MESSAGE_CAPACITY,
    perSecond: bot.rate_per_second ?? DEFAULT_BOT_MESSAGE_PER_SECOND,
  };
}

/**
 * Whether this job ran before without spending an attempt: it stalled (its worker died), or was
 * put off mid-run (a database or Redis outage, dependency-wait.ts; also the budget and relay 429
 * waits, which never got as far as a sink). BullMQ counts every start in attemptsStarted.
 */
const ranBefore = (job: Job<PipeJob>): boolean =>
  job.stalledCounter > 0 || job.attemptsStarted > job.attemptsMade + 1;

/**
 * What sentInEarlierRun found: the message sent, or the relay asked for part `part` by an
 * earlier run of this attempt with no answer kept (DELIVERY_IN_DOUBT=hold), or neither.
 */
type EarlierRun =
  | {
      readonly kind: 'sent';
      readonly outcome: SentOutcome;
      readonly sink: string;
      readonly relayed: boolean;
      readonly rendered: StoredRendered | null;
    }
  | { readonly kind: 'asked'; readonly part: number }
  | null;

/**
 * A job run again after its worker died, or after an outage cut its run short, may have reached
 * its sink already: the store sink's insert landed, or the relay answered 2xx, and its answer or
 * what came after did not. The message is then sent, whatever the checks would now say (the pipe
 * may have been disabled since, or the permission taken away): a store-sink message is in its
 * channel's timeline, a relay's answer was kept in Redis the moment it came (SentLog.append,
 * `relayed`). Only asked on such a re-run, so that ordinary runs pay no extra read. `relayed`:
 * the earlier run's sent record is in the sent log already (SentLog.entryKeptWithAnswer).
 */
async function sentInEarlierRun(
  ctx: ProcessContext,
  job: Job<PipeJob>,
  attempt: number,
): Promise<EarlierRun> {
  if (!ranBefore(job)) return null;
  const bot = await ctx.caches.bots.get(job.data.bot_id).catch((err: unknown) => {
    // The database is away: the run goes on (its checks wait for the database in turn).
    if (err instanceof DependencyError) return null;
    throw err;
  });
  if (bot?.sink === 'relay') {
    const earlier = await ctx.sentLog.answerOfEarlierRun(
      job.data.msg_id,
      queueSlotTag(ctx.deps.config, job.queueName),
    );
    // Its rendered message went into the sent log with that run's outcome, unless the entry was
    // lost after the answer (a cluster: then the entry is appended again, without it).
    if (earlier?.kind === 'answered')
      return {
        kind: 'sent',
        outcome: earlier.outcome,
        sink: 'relay',
        relayed: ctx.sentLog.entryKeptWithAnswer,
        rendered: null,
      };
    // Held only where this run would ask again (PipeRun.beforeCreate): an update-mode message
    // whose carrier says it was posted is sent, whatever the note.
    if (earlier?.kind === 'asking' && ctx.deps.config.deliveryInDoubt === 'hold') {
      const part = await askedWithoutAnswer(ctx, job, earlier.asking);
      if (part !== null) return { kind: 'asked', part };
    }
    return null;
  }
  const message = await ctx.deps.store.messages.get(job.data.msg_id).catch((err: unknown) => {
    // A store-sink message cannot be stored meanwhile either, and its next run looks again.
    if (err instanceof DependencyError) return null;
    throw err;
  });
  if (!message) return null;
  // The first part of a message split over several: sent only if every part was (else this run
  // sends the rest, message-parts.ts).
  const progress = await new PartProgress(
    ctx.deps.redis,
    ctx.deps.config.redisPrefix,
    job.data.msg_id,
  ).read();
  const parts = allSent(progress);
  if (progress.count !== null && !parts) return null;
  return {
    kind: 'sent',
    outcome: {
      sent_at: message.create_at,
      upstream_msg_id: null,
      attempts: attempt,
      not_permissions_mention: [...message.not_permissions_mention],
      ...(parts && parts.length > 1 ? { parts } : {}),
    },
    sink: 'store',
    relayed: false,
    rendered: keptRendered(message.type, message.content),
  };
}

/** A failure's detail, naming the part of a split message it befell (none for the first). */
function ofPart(detail: ParamValue, part: number): ParamValue {
  if (part === 0) return detail;
  const [zh, en] =
    typeof detail === 'object' ? [detail['zh-CN'], detail['en-US']] : [String(detail), String(detail)];
  return { 'zh-CN': `${zh}（第 ${part + 1} 部分）`, 'en-US': `${en} (part ${part + 1})` };
}

/**
 * The note a run leaves under the message's answer key before it asks the relay
 * (SentLog.noteAsking, DELIVERY_IN_DOUBT=hold): the job's queueing (a replay is a new job), its
 * attempt (a retry after a relay 5xx asks anew) and the part.
 */
const askingNote = (job: Job<PipeJob>, part: number): string =>
  `${job.timestamp}:${job.attemptsMade}:${part}`;

/**
 * The part an earlier run of this attempt asked the relay for without an answer kept, or null:
 * the note is another job's or attempt's, or its part's answer was kept (message-parts.ts).
 */
async function askedWithoutAnswer(
  ctx: ProcessContext,
  job: Job<PipeJob>,
  asking: string,
): Promise<number | null> {
  const part = Number(asking.slice(asking.lastIndexOf(':') + 1));
  if (!Number.isInteger(part) || asking !== askingNote(job, part)) return null;
  const progress = await new PartProgress(
    ctx.deps.redis,
    ctx.deps.config.redisPrefix,
    job.data.msg_id,
  ).read();
  return progress.sent.has(part) ? null : part;
}

/**
 * Counts a sent message, and its accept-to-sent time: from its acceptance, or from its replay
 * (job.timestamp, when the job was queued again), so that a replay days later does not read as
 * a days-long delivery.
 */
function countSent(ctx: ProcessContext, job: Job<PipeJob>, sink: string, sentAt: number): void {
  ctx.metrics.sent.inc({ sink });
  const since = Math.max(job.data.accepted_at, job.timestamp);
  ctx.metrics.acceptToSent.observe(Math.max(0, sentAt - since) / 1000);
}

/** How a run ended: sent, or a decision (lifecycle.ts) that settle() records and carries out. */
type Ended =
  | { readonly kind: 'sent'; readonly outcome: SentOutcome }
  | {
      readonly kind: 'wait';
      readonly at: number;
      readonly wakeAt: number;
      readonly source: 'bucket' | 'upstream';
    }
  | { readonly kind: 'retry'; readonly reason: string; readonly at: number; readonly failure: HeraldError }
  | { readonly kind: 'fail'; readonly reason: string; readonly failure: HeraldError };

/**
 * One pipe message, start to end: the run's steps (check, render, budget, dispatch, record)
 * end in a value (PipeRun.deliver), which settle() records and hands to BullMQ through
 * job-control.ts. A DependencyError (the database or Redis did not answer) or a stopping
 * worker's cut-off run passes through instead, to dependency-wait.ts, which puts the job off
 * without spending an attempt.
 */
export async function processPipeJob(
  ctx: ProcessContext,
  job: Job<PipeJob>,
  token: string | undefined,
): Promise<SentOutcome> {
  const run = new PipeRun(ctx, job, token);
  return settle(run, await run.deliver(), token);
}

/** One run of one pipe job, and what it learned on the way (its payment, its render time). */
class PipeRun {
  readonly data: PipeJob;
  readonly ids: DeliveryIds;
  readonly attempt: number;
  notPermissionsMention: string[] = [];
  private readonly reservationKey: string;
  /** The slot tag of the job's queue, for its relay answer's key (queueSlotTag). */
  private readonly answerTag: string | null;
  /**
   * A run that paid and then ends without a send anyone saw (an outage, a timeline insert the
   * database did not take) leaves its payment for the next run, while it still counts as made
   * then (paymentOf). Once the relay was asked, the next try pays again: a relay 429, 5xx or
   * timeout was a request the relay saw, and every request the relay sees counts against the
   * bot's rate + burst. (A timeline insert that did land is found by the next run before it
   * pays: sentInEarlierRun.)
   */
  private payment: Payment | null = null;
  private relaySaw = false;
  /** The part an earlier run of this attempt asked the relay for, no answer kept (sentInEarlierRun). */
  private askedBefore: number | null = null;
  /**
   * How long this run's render took (ms): a message put off after it comes back that much
   * earlier, so that its next render ends before its turn (and the send is not late).
   */
  private renderMs = 0;
  private limit: BucketLimit | undefined;

  constructor(
    readonly ctx: ProcessContext,
    readonly job: Job<PipeJob>,
    /** The run's lock token (undefined: a run without a lock, as tests make). */
    private readonly token: string | undefined = undefined,
  ) {
    this.data = job.data;
    this.ids = jobIds(this.data);
    this.attempt = job.attemptsMade + 1;
    this.answerTag = queueSlotTag(ctx.deps.config, job.queueName);
    // On a cluster the bucket and the reservation (one script) share the bot's partition's slot.
    this.reservationKey = messageReservationKey(
      ctx.deps.config.redisPrefix,
      this.data.msg_id,
      botSlotTag(ctx.deps.config, this.data.bot_id),
    );
  }

  /** Runs the steps; a failure becomes its decision (retry or fail). */
  async deliver(): Promise<Ended> {
    const { deps } = this.ctx;
    try {
      return await this.steps();
    } catch (err) {
      // Nor is a run cut off because this process is stopping past its deadline
      // (WorkerClosingError) a failure or a retry of the message. Recording a dependency outage
      // as failed on the last attempt would kill a message the relay or the store may already
      // hold, as when the sent-log append fails after a 200 from the relay.
      if (err instanceof DependencyError || err instanceof WorkerClosingError) {
        await this.keepPayment();
        throw err;
      }
      const failure = asDeliveryFailure(err);
      if (failure !== err) {
        deps.log.error('pipe message hit an unexpected error', {
          msg_id: this.data.msg_id,
          error_id: failure.data?.error_id,
          error: err,
        });
      }
      const reason = describeFailure(failure).reason;
      const next = afterFailure(
        failure,
        reason,
        this.attempt,
        this.job.opts.attempts ?? 1,
        Date.now(),
        // The delivery backoff gives BullMQ the same delay for this attempt.
        retryDelayMs(this.data.msg_id, this.attempt, deps.config.retryBaseMs),
      );
      return next.kind === 'retry' ? { ...next, failure } : { kind: 'fail', reason, failure };
    }
  }

  private async steps(): Promise<Ended> {
    const ended = await this.stepsOf();
    // A digest's items go once it is sent (grouping.ts).
    if (ended.kind === 'sent') await dropDigestItems(this.ctx, this.data);
    return ended;
  }

  private async stepsOf(): Promise<Ended> {
    const { ctx, job, data } = this;
    const { deps } = ctx;
    const earlier = await sentInEarlierRun(ctx, job, this.attempt);
    if (earlier?.kind === 'asked') this.askedBefore = earlier.part;
    else if (earlier) {
      if (!earlier.relayed)
        await ctx.sentLog.append(this.ids, earlier.outcome, {
          rendered: earlier.rendered,
          answerTag: this.answerTag,
        });
      // Counted here: the run that sent it died before it could.
      countSent(ctx, job, earlier.sink, earlier.outcome.sent_at);
      return { kind: 'sent', outcome: earlier.outcome };
    }
    // A group's digest closes its window before anything else (grouping.ts takeDigest).
    const digest = await takeDigest(ctx, data);
    const checked = await check(ctx, data);
    const limit = messageLimit(checked.bot);
    this.limit = limit;
    const bucketKey = messageBucketKey(
      deps.config.redisPrefix,
      data.bot_id,
      botSlotTag(deps.config, data.bot_id),
    );
    // A job that ran before (put off, retried, stalled) may hold a reservation or a kept payment.
    const mayHold = job.delay > 0 || job.attemptsMade > 0 || ranBefore(job);
    return runGrouped(ctx, job, digest, {
      send: (plan) => this.send(checked, bucketKey, mayHold, plan),
      folded: (into, upstream, mode) => this.folded(into, upstream, mode, checked.bot.sink),
      sentBefore: (upstream) => this.sentBefore(upstream, checked.bot.sink),
    });
  }

  /** Render, budget, dispatch, record: a message sent on its own (or a digest, or an edit). */
  private async send(checked: Checked, bucketKey: string, mayHold: boolean, plan: SendPlan): Promise<Ended> {
    const { ctx, job, data } = this;
    const { deps } = ctx;
    const limit = this.limit as BucketLimit;
    // A message is not rendered only to be put off: where this process last saw the bot's
    // bucket short, a look ahead (taking nothing) reserves the message's turn before the render,
    // so that a backlog is rendered once each, when its turn comes.
    if (!mayHold && ctx.budgets.looksShort(bucketKey, limit, checked.cost)) {
      const ahead = await ctx.budgets.peek(bucketKey, limit, checked.cost, this.reservationKey);
      if (!ahead.allowed) return this.wait(ahead.retryAfterMs, 'bucket');
    }
    const renderStarted = performance.now();
    // An edit replaces one message: an update in place that would be split is truncated instead.
    const fitted: Checked =
      plan.dispatch !== undefined && checked.overflow === 'split'
        ? { ...checked, overflow: 'truncate' }
        : checked;
    const prepared = await render(ctx, data, fitted, plan.group);
    this.renderMs = performance.now() - renderStarted;
    this.notPermissionsMention = prepared.notPermissionsMention;
    // A message split over several sends its parts in order, each paying its own turn; the
    // parts an earlier run sent are not sent again (message-parts.ts).
    const progress =
      prepared.parts.length > 1 ? new PartProgress(deps.redis, deps.config.redisPrefix, data.msg_id) : null;
    const begun = progress ? await progress.read() : null;
    const earlierParts = begun?.sent ?? new Map<number, DeliveryPart>();
    if (progress && begun?.count !== prepared.parts.length) await progress.begin(prepared.parts.length);
    const sentParts: DeliveryPart[] = [];
    let sentAt: number | null = null;
    let foldedInto: string | undefined;
    for (const [i, part] of prepared.parts.entries()) {
      const before = earlierParts.get(i);
      if (before) {
        sentParts.push(before);
        continue;
      }
      // Read before the turn: nothing between the budget's answer and the request waits on the
      // database (a new bot's first burst would reach the relay late, bunched with what follows).
      const sender = await senderOf(ctx, checked.bot);
      // A reservation or kept payment is the first send's of this run.
      const turn = await this.sendTurn(bucketKey, checked.cost, mayHold && sentAt === null);
      if (turn) return turn;
      const message = { ...part, create_at: deps.now() };
      let noted = false;
      // Right before a request that creates a message (an update-mode edit asked twice changes
      // nothing, and goes without).
      const beforeCreate = async () => {
        noted = await this.beforeCreate(checked.bot.sink, i);
      };
      let result: GroupSinkResult;
      try {
        // After the note: a run stopped by it (JobTakenOverError) asked nothing, and keeps its
        // payment. (An update-mode plan notes its creates itself; its edits ask the relay too.)
        if (!plan.dispatch) await beforeCreate();
        this.relaySaw = checked.bot.sink === 'relay';
        result = plan.dispatch
          ? await plan.dispatch(message, sender, beforeCreate)
          : await dispatch(ctx, sender, message);
      } catch (err) {
        if (noted) await this.afterAsked(err, i);
        throw err;
      }
      if (result.kind === 'rate_limited') {
        if (noted) await this.forgetAsking();
        return this.wait(result.waitMs, 'upstream');
      }
      // Spent: not a payment to leave to the next run, should what follows fail.
      this.payment = null;
      // The store sink took the message when it was handed over (its timeline's create_at): the
      // moment its budget was held for, whatever the insert's own latency.
      sentAt = checked.bot.sink === 'relay' ? deps.now() : message.create_at;
      if (result.folded_into !== undefined) foldedInto = result.folded_into;
      const sent = { msg_id: message.msg_id, upstream_msg_id: result.upstream_msg_id };
      sentParts.push(sent);
      if (progress) {
        await progress.sent(i, sent);
        ctx.metrics.partsSent.inc({ sink: checked.bot.sink });
      }
    }
    const outcome: SentOutcome = {
      // Every part sent before this run (it noted the last one and stopped): now.
      sent_at: sentAt ?? deps.now(),
      upstream_msg_id: sentParts[0]?.upstream_msg_id ?? null,
      attempts: this.attempt,
      not_permissions_mention: this.notPermissionsMention,
      // An update that edited its group's carrier (grouping.ts).
      ...(foldedInto === undefined ? {} : { folded_into: foldedInto }),
      ...(sentParts.length > 1 ? { parts: sentParts } : {}),
    };
    await ctx.sentLog.append(this.ids, outcome, {
      relayed: checked.bot.sink === 'relay',
      rendered: prepared.rendered,
      answerTag: this.answerTag,
    });
    countSent(ctx, job, checked.bot.sink, outcome.sent_at);
    return { kind: 'sent', outcome };
  }

  /**
   * DELIVERY_IN_DOUBT=hold, before a relay request that creates part `part`: refuses to ask
   * again what an earlier run of this attempt asked without an answer kept (IN_DOUBT), else
   * leaves the note that the relay is being asked. Whether a note was left.
   */
  private async beforeCreate(sink: string, part: number): Promise<boolean> {
    if (this.askedBefore === part) {
      throw fail(REASON.IN_DOUBT, {
        detail: ofPart(
          {
            'zh-CN': '询问转发目标时工作进程已停止',
            'en-US': 'the worker stopped while the relay was being asked',
          },
          part,
        ),
      });
    }
    if (sink !== 'relay' || this.ctx.deps.config.deliveryInDoubt !== 'hold') return false;
    // Written only while the lock is this run's: a worker that takes the job over after it
    // lapsed finds the note, or this run does not ask.
    const lock =
      this.token === undefined
        ? null
        : { key: `${this.job.queueQualifiedName}:${this.job.id}:lock`, token: this.token };
    const noted = await this.ctx.sentLog.noteAsking(
      this.data.msg_id,
      this.answerTag,
      askingNote(this.job, part),
      lock,
    );
    if (!noted) throw new JobTakenOverError();
    return true;
  }

  /**
   * A noted request failed: held IN_DOUBT where the relay may have taken the message; where it
   * said it did not, the note goes and the failure takes its course (a retry asks anew).
   */
  private async afterAsked(err: unknown, part: number): Promise<void> {
    const verdict = relayVerdict(err);
    if (verdict === 'maybe') {
      throw fail(REASON.IN_DOUBT, { detail: ofPart((err as DeliveryError).params.detail ?? '', part) });
    }
    if (verdict === 'refused') await this.forgetAsking();
  }

  /**
   * Takes the note back: the relay did not take the message. Should Redis refuse, the failure
   * goes on as it is; a re-run of this attempt (a 429's wait) then holds the message IN_DOUBT
   * rather than risk a second copy.
   */
  private async forgetAsking(): Promise<void> {
    await this.ctx.sentLog.forgetAsking(this.data.msg_id, this.answerTag).catch((err: unknown) => {
      this.ctx.deps.log.warn('could not take back an in-doubt note', {
        msg_id: this.data.msg_id,
        error: err,
      });
    });
  }

  /** Carried by another message of its group (grouping.ts): recorded folded, nothing sent. */
  private async folded(
    into: string,
    upstreamMsgId: string | null,
    mode: string,
    sink: string,
  ): Promise<Ended> {
    const outcome: SentOutcome = {
      sent_at: this.ctx.deps.now(),
      upstream_msg_id: upstreamMsgId,
      attempts: this.attempt,
      not_permissions_mention: [],
      folded_into: into,
    };
    await this.ctx.sentLog.append(this.ids, outcome, {
      relayed: sink === 'relay',
      answerTag: this.answerTag,
    });
    this.ctx.metrics.folded.inc({ mode });
    return { kind: 'sent', outcome };
  }

  /** Sent by an earlier run, as its group's state says (an update-mode carrier's re-run). */
  private async sentBefore(upstreamMsgId: string | null, sink: string): Promise<Ended> {
    const outcome: SentOutcome = {
      sent_at: this.ctx.deps.now(),
      upstream_msg_id: upstreamMsgId,
      attempts: this.attempt,
      not_permissions_mention: [],
    };
    await this.ctx.sentLog.append(this.ids, outcome, {
      relayed: sink === 'relay',
      answerTag: this.answerTag,
    });
    countSent(this.ctx, this.job, sink, outcome.sent_at);
    return { kind: 'sent', outcome };
  }

  /**
   * Takes the bot's budget at the send, right before the dispatch, where the promise
   * `sends <= capacity + rate x t` must hold (tokens taken before a render of any length let sends
   * bunch up behind slow renders). `mayHold`: a reservation or a kept payment may be there, to be
   * claimed (a reservation from its turn on). Refused, the message waits for its turn here when
   * that is near, else is put off until just before it (and rendered again then): null once
   * paid, else the wait.
   */
  private async sendTurn(bucketKey: string, cost: number, mayHold: boolean): Promise<Ended | null> {
    const l = this.limit as BucketLimit;
    for (let claim = mayHold; ; claim = true) {
      const budget = await this.ctx.budgets.take(bucketKey, l, cost, {
        key: this.reservationKey,
        mayHold: claim,
      });
      if (budget.allowed) {
        this.payment = paymentOf(budget, l, cost);
        return null;
      }
      if (budget.retryAfterMs > turnLeadMs(l)) return this.wait(budget.retryAfterMs, 'bucket');
      await sleep(budget.retryAfterMs);
    }
  }

  /** A rate-limited run's decision: wait (back early for a reserved turn), or dead past patience. */
  private wait(waitMs: number, source: 'bucket' | 'upstream'): Ended {
    const patienceMs = this.ctx.deps.config.relayRateLimitPatienceMs;
    const decided = rateWait({
      source,
      waitMs,
      now: Date.now(),
      // Accepted, or replayed.
      queuedAt: this.job.timestamp,
      patienceMs,
      leadMs: this.limit ? turnLeadMs(this.limit) + this.renderMs : 0,
      minWaitMs: MIN_RATE_WAIT_MS,
      spread: RATE_WAIT_SPREAD,
      random: Math.random,
    });
    if (decided.kind === 'wait') return { ...decided, source };
    return {
      kind: 'fail',
      reason: REASON.UPSTREAM_RATE_LIMITED,
      failure: fail(REASON.UPSTREAM_RATE_LIMITED, { patience_s: patienceMs / 1000 }),
    };
  }

  /** Leaves a payment no send used to the next run, while it is still as good as one made then. */
  async keepPayment(): Promise<void> {
    const keepMs = this.payment ? this.payment.validMs - (performance.now() - this.payment.at) : 0;
    if (keepMs <= 0 || this.relaySaw) return;
    await rememberPayment(this.ctx.deps.redis, this.reservationKey, keepMs).catch((err: unknown) => {
      this.ctx.deps.log.warn('could not keep a paid message budget for its next run', {
        msg_id: this.data.msg_id,
        error: err,
      });
    });
  }
}

/** Records how a run ended and tells BullMQ (job-control.ts); answers a sent message's outcome. */
async function settle(run: PipeRun, ended: Ended, token: string | undefined): Promise<SentOutcome> {
  const { ctx, job, data, ids, attempt } = run;
  const { deps, metrics } = ctx;
  switch (ended.kind) {
    case 'sent':
      // The job's return value: what pipemsg-status answers until the record is in the store.
      return ended.outcome;
    case 'wait': {
      metrics.rateLimitedWaits.inc({ bot_id: data.bot_id, source: ended.source });
      // Shown by pipemsg-status at once, whenever the record below lands (wait-notes.ts).
      await noteWait(
        deps.redis,
        deps.config.redisPrefix,
        data.msg_id,
        {
          status: 'rate_limited',
          retry_at: ended.at,
          attempts: attempt - 1,
          reason: null,
          code: null,
          message: null,
        },
        Date.now(),
      );
      // The record only shows the wait; the wait itself must hold even while the store is away.
      // (Passed on, the DependencyError would have dependency-wait.ts put the job off for its
      // short backoff instead, and the bucket's reservation let it through early: a bot's whole
      // backlog past its limit during a database outage.)
      await markRateLimited(deps, ids, ended.at, attempt - 1).catch((err: unknown) => {
        if (!(err instanceof DependencyError)) throw err;
        deps.log.warn('rate-limited record not written: the database is away', { msg_id: data.msg_id });
      });
      return putOff(job, token, ended.wakeAt);
    }
    case 'fail':
      await markFailed(deps, ids, ended.failure, attempt, { ...data }, run.notPermissionsMention);
      metrics.failed.inc({ reason: ended.reason });
      // The overview's count only: the message is recorded dead whether or not Redis takes it.
      await countOutcome(deps.redis, deps.config.redisPrefix, 'failed', Date.now()).catch((err: unknown) =>
        deps.log.warn('dead message not counted: Redis did not answer', { msg_id: data.msg_id, error: err }),
      );
      deps.log.info('pipe message failed', {
        msg_id: data.msg_id,
        bot_id: data.bot_id,
        reason: ended.reason,
        attempts: attempt,
      });
      return endDead(ended.reason);
    case 'retry': {
      const { failure, reason } = ended;
      metrics.retries.inc({ reason });
      // The record's event is dated when the retry was decided, and a retry planned for a moment
      // already past (a short backoff on a slow machine) is due then, not before its own event.
      const decidedAt = deps.now();
      const retryAt = Math.max(ended.at, decidedAt);
      await run.keepPayment();
      plannedRetries.set(failure, retryAt);
      const described = describeFailure(failure);
      await noteWait(
        deps.redis,
        deps.config.redisPrefix,
        data.msg_id,
        {
          status: 'queued',
          retry_at: retryAt,
          attempts: attempt,
          reason,
          code: described.code,
          message: described.message,
          params: described.params,
        },
        Date.now(),
        // The overview's count of retries, in the same round trip.
        (m) => countIn(m, deps.config.redisPrefix, 'retried', Date.now()),
      );
      // The attempt was made (the relay saw it): a record the store does not take now must not
      // make the job run this attempt again, uncounted. The wait note above shows the retry.
      await markRetrying(deps, ids, failure, attempt, retryAt, decidedAt).catch((err: unknown) => {
        if (!(err instanceof DependencyError)) throw err;
        deps.log.warn('retrying record not written: the database is away', { msg_id: data.msg_id });
      });
      // With the error: a relay's connection error names its address, which the record does not.
      deps.log.warn('pipe message will be retried', { msg_id: data.msg_id, reason, attempt, error: failure });
      return retryLater(failure);
    }
  }
}
