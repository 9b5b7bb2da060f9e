import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  type Carrier,
  digestMsgId,
  type GroupMeta,
  type GroupSeq,
  groupHash,
  groupKeyOf,
  MAX_DIGEST_BYTES,
  MAX_DIGEST_ITEMS,
  type PipeGrouping,
  updateDecision,
  windowEnd,
} from '../../domain/pipes/grouping.js';
import { requestVariables } from '../../domain/pipes/routing/routing.js';
import { DeliveryError, DependencyError, HeraldError } from '../../errors/index.js';
import { withRecordLock } from '../../locks/record-lock.js';
import type { InputEncoding } from '../../queue/job-input.js';
import {
  type DigestOf,
  PIPE_JOB_NAME,
  type PipeJob,
  STUDIO_TEST_PIPE_ID,
} from '../../queue/pipe-messages.js';
import { asRedisDependencyError } from '../../ratelimit/redis-errors.js';
import { groupBaseKey, groupDecisionKey, lockKey } from '../../redis/keys.js';
import { clusterTag } from '../../redis/partitions.js';
import type { ProcessContext } from '../process-context.js';
import { templateVersionKey } from '../render-pool/compiled-templates.js';
import type { GroupRenderInput } from '../render-pool/render-input.js';
import { relayEdit } from '../sinks/relay-sink.js';
import type { OutgoingMessage, SinkResult } from '../sinks/types.js';
import { dispatch, type Sender } from './message-dispatch.js';

/*
 * Alert-storm control in the worker (docs/pipes.md, "Grouping"): a message of a grouped pipe is
 * checked, its group key rendered, then, by the pipe's mode:
 * - update: under its group's lock, posted as the group's carrier or edited into it;
 * - digest: folded into its group's open window (group-fold.lua), whose digest job (a delayed
 *   BullMQ job with an id derived from the window, added by every message folded into it) sends
 *   one message rendered from the window's items;
 * - throttle: the first `limit` of a window go out on their own, the rest are folded into the
 *   window's closing digest.
 * Decisions that need no I/O are domain/pipes/grouping.ts's.
 */

const FOLD_LUA = readFileSync(new URL('./group-fold.lua', import.meta.url), 'utf8');
const TAKE_LUA = readFileSync(new URL('./group-take.lua', import.meta.url), 'utf8');
const FOLD = 'heraldGroupFold';
const TAKE = 'heraldGroupTake';
type FoldCommand = (base: string, decision: string, ...args: Array<string | number>) => Promise<string>;
type TakeCommand = (base: string, window: string, ttlMs: number) => Promise<Array<string | null>>;

/**
 * How long a message's grouping decision, and a window's items, are kept, in ms: 7 days, as long
 * as the queue keeps a failed job (a replay runs it again and must fold it the same way; a dead
 * digest replayed must find its items).
 */
export const GROUP_DECISION_KEEP_MS = 7 * 24 * 60 * 60 * 1000;
/** How long a group's open window and counters outlive their window, in ms (a day). */
const GROUP_STATE_SLACK_MS = 24 * 60 * 60 * 1000;
/**
 * How long a message waits for its group's lock in update mode, in ms. The holder renders and
 * sends one message; a group of many queued messages takes its turns one after the other.
 */
export const GROUP_LOCK_WAIT_MS = 60_000;

/** What the rest of a run does for a grouped message (process-message.ts PipeRun). */
export interface GroupedRunner<T> {
  /** Renders (with `plan.group`), takes the budget and sends (through `plan.dispatch`, if any). */
  send(plan: SendPlan): Promise<T>;
  /** Ends the run without a send: `into` carried the message (status folded). */
  folded(into: string, upstreamMsgId: string | null, mode: PipeGrouping['mode']): Promise<T>;
  /** Ends the run as sent earlier (a carrier's re-run whose send was kept in its group's state). */
  sentBefore(upstreamMsgId: string | null): Promise<T>;
}

/** How a grouped message is sent. */
export interface SendPlan {
  readonly group?: GroupRenderInput;
  /**
   * Sends the rendered message instead of the sink's plain post (update mode); `beforeCreate`
   * right before a request that creates a message (not before an edit).
   */
  readonly dispatch?: (
    m: OutgoingMessage,
    sender: Sender,
    beforeCreate: () => Promise<void>,
  ) => Promise<GroupSinkResult>;
}

/** A sink's answer, and the carrier a message went into when it edited one. */
export type GroupSinkResult =
  | { readonly kind: 'sent'; readonly upstream_msg_id: string | null; readonly folded_into?: string }
  | Extract<SinkResult, { kind: 'rate_limited' }>;

/** One message folded into a window, as group-fold.lua keeps it. */
interface FoldedItem {
  readonly input: string;
  readonly input_encoding: InputEncoding | null;
}

/** A digest's window, taken (group-take.lua). */
export interface DigestTake {
  readonly items: readonly FoldedItem[];
  readonly render: GroupRenderInput;
}

function commands(redis: Redis) {
  const client = redis as Redis & Record<string, unknown>;
  if (!client[FOLD]) redis.defineCommand(FOLD, { numberOfKeys: 2, lua: FOLD_LUA });
  if (!client[TAKE]) redis.defineCommand(TAKE, { numberOfKeys: 1, lua: TAKE_LUA });
  return client as unknown as Record<typeof FOLD, FoldCommand> & Record<typeof TAKE, TakeCommand>;
}

const stateTtlMs = (windowS: number): number => windowS * 1000 + GROUP_STATE_SLACK_MS;

const metaOf = (digest: DigestOf, count: number): GroupMeta => ({
  key: digest.key,
  mode: digest.mode,
  count,
  // A throttle's closing digest carries exactly what the window held back.
  held_back: digest.mode === 'throttle' ? count : 0,
  window_start: digest.opened_at,
  window_end: windowEnd(digest.opened_at, digest.window_s),
});

/**
 * A digest job's first step, before its checks: closes its window (later messages of the group
 * open the next) and reads the window's items, which stay in Redis until the digest is sent, so
 * that a re-run (or a replay) reads the same list. null: not a digest.
 */
export async function takeDigest(ctx: ProcessContext, data: PipeJob): Promise<DigestTake | null> {
  const digest = data.group;
  if (digest === undefined) return null;
  const { redis, config } = ctx.deps;
  let raw: Array<string | null>;
  try {
    raw = await commands(redis)[TAKE](
      groupBaseKey(config.redisPrefix, digest.id, clusterTag(config, digest.id)),
      String(digest.window),
      stateTtlMs(digest.window_s),
    );
  } catch (err) {
    throw asRedisDependencyError(err);
  }
  const items = raw.flatMap((r) => (r === null ? [] : [JSON.parse(r) as FoldedItem]));
  return {
    items,
    render: {
      meta: metaOf(digest, items.length),
      items: items.map((i) => ({ input: i.input, inputEncoding: i.input_encoding ?? undefined })),
    },
  };
}

/** Once a digest is sent (or found sent by a re-run): its window's items go. Best effort. */
export async function dropDigestItems(ctx: ProcessContext, data: PipeJob): Promise<void> {
  const digest = data.group;
  if (digest === undefined) return;
  const base = groupBaseKey(ctx.deps.config.redisPrefix, digest.id, clusterTag(ctx.deps.config, digest.id));
  await ctx.deps.redis
    .del(`${base}:w:${digest.window}`, `${base}:wi:${digest.window}`)
    .catch((err: unknown) =>
      ctx.deps.log.warn('items of a sent digest not deleted; they expire', {
        msg_id: data.msg_id,
        error: err,
      }),
    );
}

/**
 * The run of a checked message: a digest (its window taken: `digest`), a grouped pipe's message,
 * or any other, which `runner.send` sends as before.
 */
export async function runGrouped<T>(
  ctx: ProcessContext,
  job: Job<PipeJob>,
  digest: DigestTake | null,
  runner: GroupedRunner<T>,
): Promise<T> {
  const data = job.data;
  // A digest whose items were sent and deleted already (its job added again after the queue
  // dropped the completed one) has nothing left to send.
  if (digest !== null)
    return digest.items.length === 0 ? runner.sentBefore(null) : runner.send({ group: digest.render });
  if (data.pipe_id === STUDIO_TEST_PIPE_ID) return runner.send({});
  const grouping = (await ctx.caches.pipes.get(data.pipe_id))?.grouping ?? null;
  if (grouping === null) return runner.send({});
  const key = await renderGroupKey(ctx, data, grouping);
  if (key === null) return runner.send({});
  const groupId = groupHash(data.pipe_id, key);
  if (grouping.mode === 'update') return updateInPlace(ctx, data, grouping, key, groupId, runner);
  return foldOrPass(ctx, data, grouping, key, groupId, runner);
}

/**
 * The pipe's key template rendered on the message, through the render pool like any template
 * (bounded, off the main thread), as KMarkdown text; null: it rendered empty (not grouped). A
 * pipe without a template's key sees its content as `data.content`.
 */
async function renderGroupKey(ctx: ProcessContext, data: PipeJob, g: PipeGrouping): Promise<string | null> {
  const id = `group-key:${createHash('sha256').update(g.key).digest('hex').slice(0, 32)}`;
  const compiled = ctx.caches.compiledTemplate(id, 0, g.key);
  const templated = data.template_id !== null;
  const out = await ctx.renderer.render({
    templateKey: templateVersionKey(id, 0),
    source: g.key,
    compiled,
    msgtype: 1,
    input: templated ? data.input : JSON.stringify({ content: data.input }),
    inputEncoding: templated ? data.input_encoding : undefined,
    variables: requestVariables(data),
    platform: {},
    now: ctx.deps.now(),
  });
  return groupKeyOf(out.content);
}

/** Digest and throttle: fold the message into its window (its digest queued), or let it pass. */
async function foldOrPass<T>(
  ctx: ProcessContext,
  data: PipeJob,
  g: PipeGrouping,
  key: string,
  groupId: string,
  runner: GroupedRunner<T>,
): Promise<T> {
  const { redis, config } = ctx.deps;
  const mode = g.mode === 'throttle' ? 'throttle' : 'digest';
  const item: FoldedItem = { input: data.input, input_encoding: data.input_encoding ?? null };
  let decided: string;
  try {
    decided = await commands(redis)[FOLD](
      // On a cluster the group's keys and the message's decision share the group's slot.
      groupBaseKey(config.redisPrefix, groupId, clusterTag(config, groupId)),
      groupDecisionKey(config.redisPrefix, data.msg_id, clusterTag(config, groupId)),
      data.msg_id,
      data.accepted_at,
      JSON.stringify(item),
      g.window_s * 1000,
      mode,
      g.limit ?? 0,
      MAX_DIGEST_ITEMS,
      GROUP_DECISION_KEEP_MS,
      stateTtlMs(g.window_s),
      MAX_DIGEST_BYTES,
    );
  } catch (err) {
    throw asRedisDependencyError(err);
  }
  const [kind, n, at, held] = decided.split('|');
  const window = Number(n);
  const openedAt = Number(at);
  if (kind === 'p') {
    const meta: GroupMeta = {
      key,
      mode,
      count: 1,
      held_back: Number(held),
      window_start: openedAt,
      window_end: windowEnd(openedAt, g.window_s),
    };
    return runner.send({ group: { meta } });
  }
  const digest: DigestOf = { id: groupId, key, mode, window, opened_at: openedAt, window_s: g.window_s };
  const digestId = digestMsgId(groupId, window, openedAt);
  await addDigest(ctx, data, digest, digestId);
  return runner.folded(digestId, null, mode);
}

/**
 * Queues a window's digest, delayed to the window's end. Every message folded into the window
 * adds it (a re-run too): BullMQ adds one job id once, so there is one digest per window, and a
 * worker that died between its fold and this add leaves it to its job's re-run or to the next
 * message folded into the same window.
 */
async function addDigest(
  ctx: ProcessContext,
  data: PipeJob,
  digest: DigestOf,
  digestId: string,
): Promise<void> {
  if (!ctx.queues) throw new Error('grouped pipes need the pipe queue in the process context');
  const job: PipeJob = {
    msg_id: digestId,
    pipe_id: data.pipe_id,
    bot_id: data.bot_id,
    channel_id: data.channel_id,
    guild_id: data.guild_id,
    // The window's digest renders with the template of the message that reached it first.
    template_id: data.template_id,
    type: data.type,
    quote: null,
    nonce: '',
    temp_target_id: null,
    input: '',
    accepted_at: digest.opened_at,
    group: digest,
  };
  const delay = Math.max(0, windowEnd(digest.opened_at, digest.window_s) - Date.now());
  try {
    await ctx.queues.of(data.bot_id).add(PIPE_JOB_NAME, job, { jobId: digestId, delay });
  } catch (err) {
    throw asRedisDependencyError(err);
  }
}

/** The group's carrier in Redis: a hash, or null when the group has none (or it expired). */
async function readCarrier(redis: Redis, key: string): Promise<Carrier | null> {
  const h = await redis.hgetall(key);
  if (!h.msg_id) return null;
  return {
    msg_id: h.msg_id,
    upstream_msg_id: h.upstream ? h.upstream : null,
    applied: { at: Number(h.at), id: h.id ?? '' },
  };
}

async function writeCarrier(redis: Redis, key: string, c: Carrier, ttlMs: number): Promise<void> {
  await redis
    .multi()
    .hset(key, { msg_id: c.msg_id, upstream: c.upstream_msg_id ?? '', at: c.applied.at, id: c.applied.id })
    .pexpire(key, ttlMs)
    .exec();
}

/**
 * Update mode, under the group's lock (one message of a group at a time, across workers): the
 * first message is posted and becomes the carrier; a newer one edits the carrier (relay:
 * message/update; store: the timeline entry); an older one (late, or a re-run of one applied) is
 * folded without a send. A carrier that is gone (the relay refuses the edit, the timeline has no
 * such entry) is replaced: the message is posted anew. The carrier lives `window_s` after the
 * group's last message; a group quiet for longer starts a new message.
 */
async function updateInPlace<T>(
  ctx: ProcessContext,
  data: PipeJob,
  g: PipeGrouping,
  key: string,
  groupId: string,
  runner: GroupedRunner<T>,
): Promise<T> {
  const { redis, config } = ctx.deps;
  const carrierKey = `${groupBaseKey(config.redisPrefix, groupId, clusterTag(config, groupId))}:carrier`;
  const ttlMs = g.window_s * 1000;
  const seq: GroupSeq = { at: data.accepted_at, id: data.msg_id };
  const locked = async (): Promise<T> => {
    const carrier = await readCarrier(redis, carrierKey).catch((err: unknown) => {
      throw asRedisDependencyError(err);
    });
    const decision = updateDecision(carrier, seq);
    if (carrier !== null && decision === 'stale')
      return runner.folded(carrier.msg_id, carrier.upstream_msg_id, 'update');
    if (carrier !== null && decision === 'carrier') return runner.sentBefore(carrier.upstream_msg_id);
    const meta: GroupMeta = {
      key,
      mode: 'update',
      count: 1,
      held_back: 0,
      window_start: data.accepted_at,
      window_end: windowEnd(data.accepted_at, g.window_s),
    };
    return runner.send({
      group: { meta },
      dispatch: async (m, sender, beforeCreate) => {
        if (carrier !== null) {
          const edited = await editCarrier(ctx, sender, carrier, m);
          if (edited.kind === 'rate_limited') return edited;
          if (edited.kind === 'edited') {
            await writeCarrier(redis, carrierKey, { ...carrier, applied: seq }, ttlMs);
            return { kind: 'sent', upstream_msg_id: carrier.upstream_msg_id, folded_into: carrier.msg_id };
          }
        }
        await beforeCreate();
        const posted = await dispatch(ctx, sender, m);
        if (posted.kind === 'rate_limited') return posted;
        await writeCarrier(
          redis,
          carrierKey,
          { msg_id: data.msg_id, upstream_msg_id: posted.upstream_msg_id, applied: seq },
          ttlMs,
        );
        return posted;
      },
    });
  };
  try {
    return await withRecordLock(redis, lockKey(config.redisPrefix, 'group', groupId), locked, {
      // Longer than one send may take (a relay request's whole timeout, and the render).
      ttlMs: config.relayTimeoutMs + 30_000,
      waitMs: GROUP_LOCK_WAIT_MS,
    });
  } catch (err) {
    // A group busy for that long: the message waits its turn again, spending no attempt (as a
    // Redis outage would; dependency-wait.ts puts it off).
    if (err instanceof HeraldError && err.key === 'CONFLICT') throw new DependencyError('redis', err);
    throw err;
  }
}

/** An edit of the carrier: done, refused because it is gone, or a relay 429. */
type Edited =
  | { readonly kind: 'edited' }
  | { readonly kind: 'gone' }
  | Extract<SinkResult, { kind: 'rate_limited' }>;

async function editCarrier(
  ctx: ProcessContext,
  { bot, upstreamToken: token }: Sender,
  carrier: Carrier,
  m: OutgoingMessage,
): Promise<Edited> {
  const { deps } = ctx;
  if (bot.sink !== 'relay') {
    // Temporary messages are not in the timeline: nothing to edit, and each is posted.
    if (m.temp_target_id) return { kind: 'gone' };
    const found = await deps.store.messages.edit(carrier.msg_id, {
      type: m.type,
      content: m.content,
      updated_at: m.create_at,
      not_permissions_mention: m.not_permissions_mention,
    });
    return found ? { kind: 'edited' } : { kind: 'gone' };
  }
  if (carrier.upstream_msg_id === null) return { kind: 'gone' };
  // An unconfigured relay fails in the post below with its own reason.
  if (bot.relay_url === '' || token === '') return { kind: 'gone' };
  try {
    const r = await relayEdit({ url: bot.relay_url, token }, carrier.upstream_msg_id, m, {
      timeoutMs: deps.config.relayTimeoutMs,
    });
    return r.kind === 'sent' ? { kind: 'edited' } : r;
  } catch (err) {
    // Refused (the message was deleted, or can no longer be edited): post anew. A relay that is
    // down or slow is retried as any send is.
    if (err instanceof DeliveryError && err.reason === 'UPSTREAM_REJECTED') return { kind: 'gone' };
    throw err;
  }
}
