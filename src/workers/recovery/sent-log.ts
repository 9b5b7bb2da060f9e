import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { DEFAULT_SENT_LOG_CLAIM_IDLE_MS } from '../../config/defaults.js';
import { countOutcome, countTarget, expiryNotSent, minuteOf } from '../../domain/deliveries/recent-counts.js';
import {
  type DeliveryIds,
  markSentMany,
  type SentItem,
  type SentOutcome,
} from '../../domain/deliveries/records.js';
import type { Deps } from '../../domain/deps.js';
import { asRedisDependencyError, redisErrorCode } from '../../ratelimit/redis-errors.js';
import { isCluster } from '../../redis/clients.js';
import { relayAnswerKey, sentLogKey } from '../../redis/keys.js';
import { botSlotTag } from '../../redis/partitions.js';
import type { StoredRendered } from '../../store/index.js';

/** Most `sent` records one flush writes to the store (one insert round-trip). */
export const SENT_LOG_BATCH = 500;
/** How long an idle flusher waits in one blocking read for new entries, in ms. */
export const SENT_LOG_BLOCK_MS = 1_000;
/**
 * How often a flusher looks for entries another flusher read but has not confirmed for
 * `claimIdleMs` (the SENT_LOG_CLAIM_IDLE_MS setting: that worker died between reading and writing
 * them), in ms; at most a third of the idle time, so that they wait at most about 4/3 of it.
 */
export const SENT_LOG_CLAIM_EVERY_MS = 10_000;
/** Flushers that left nothing pending and have been silent this long are forgotten, in ms (1 h). */
export const SENT_LOG_FORGET_IDLE_MS = 60 * 60 * 1000;
/**
 * After a read that found fewer than SENT_LOG_BATCH entries, how long the flusher waits for more
 * before writing, in ms: under load this turns many small inserts into few large ones (the store
 * pays a fixed cost per write). Jobs do not wait for it; only the record lands this much later.
 */
export const SENT_LOG_LINGER_MS = 50;
/** Wait after a failed store write before trying the same entries again, in ms. */
export const SENT_LOG_RETRY_MS = 1_000;
/**
 * How long a stopping flusher goes on writing entries nobody has read yet, in ms. Other workers
 * keep appending while one stops, so without a bound its shutdown would not end under load;
 * what it leaves, their flushers (or the next start) write.
 */
export const SENT_LOG_CLOSE_DRAIN_MS = 1_000;

const GROUP = 'recorders';

/** Most appends one script call writes; more go in the next call of the same turn. */
export const SENT_LOG_APPEND_BATCH = 500;
const APPEND_LUA = readFileSync(new URL('./sent-log-append.lua', import.meta.url), 'utf8');
const APPEND_COMMAND = 'heraldSentLogAppend';
type AppendCommand = (numberOfKeys: number, ...keysThenArgs: Array<string | number>) => Promise<number>;
const NOTE_LUA = readFileSync(new URL('./asking-note.lua', import.meta.url), 'utf8');
const NOTE_COMMAND = 'heraldAskingNote';

/** An append waiting for its turn's script call (SentLog.append). */
interface PendingAppend {
  readonly answerKey: string | null;
  readonly answer: string;
  readonly entry: string;
  /** When it was sent, to count it in its minute; null: not counted (a folded message). */
  readonly countAt: number | null;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

/**
 * How long a relay's answer is kept when its job never completes, in ms (7 days, as long as the
 * queue keeps a failed job): a completed job's is deleted at once.
 */
export const RELAY_ANSWER_KEEP_MS = 7 * 24 * 60 * 60 * 1000;

type Entry = SentItem;

/** What answerOfEarlierRun found. */
export type EarlierAnswer =
  | { readonly kind: 'answered'; readonly outcome: SentOutcome }
  | { readonly kind: 'asking'; readonly asking: string }
  | null;

/** What append() is told besides the outcome. */
export interface AppendOptions {
  /** A relay took the message (its answer is kept for a re-run, see append()). */
  readonly relayed?: boolean;
  /** The message as sent, for its record (keptRendered; null or absent: not known to this run). */
  readonly rendered?: StoredRendered | null;
  /**
   * The slot tag of the queue the message's job is in (queueSlotTag), for its relay answer's
   * key; absent: the bot's partition's.
   */
  readonly answerTag?: string | null;
}

/** A stream entry; `entry` is null for one with nothing to write (deleted or unreadable). */
interface Read {
  readonly id: string;
  readonly entry: Entry | null;
}

type StreamReply = Array<[string, Array<[string, string[]]>]> | null;

/** The flusher's timings, in ms; the SENT_LOG_* constants unless a test shortens them. */
export interface SentLogTimings {
  readonly blockMs: number;
  readonly claimIdleMs: number;
  readonly claimEveryMs: number;
  readonly forgetIdleMs: number;
  readonly retryMs: number;
  readonly lingerMs: number;
  readonly closeDrainMs: number;
}

const DEFAULT_TIMINGS: SentLogTimings = {
  blockMs: SENT_LOG_BLOCK_MS,
  claimIdleMs: DEFAULT_SENT_LOG_CLAIM_IDLE_MS,
  claimEveryMs: SENT_LOG_CLAIM_EVERY_MS,
  forgetIdleMs: SENT_LOG_FORGET_IDLE_MS,
  retryMs: SENT_LOG_RETRY_MS,
  lingerMs: SENT_LOG_LINGER_MS,
  closeDrainMs: SENT_LOG_CLOSE_DRAIN_MS,
};

/**
 * `sent` records, write-behind. Why: a delivery record per message written by the job itself
 * tied every job slot to a store round-trip, and the store (FerretDB especially) pays a fixed
 * cost per write that small batches cannot spread. Instead a job appends its outcome to a Redis
 * stream (one command, as durable as the queue that held the job) and completes; a flusher in
 * every worker process reads the stream as one consumer group and writes large batches. An
 * entry is deleted only after its batch is in the store; entries of a worker that died are
 * taken over by another after SENT_LOG_CLAIM_IDLE_MS. While the store is down, messages keep
 * being delivered and their records wait in Redis. Until a record lands, pipemsg-status reads
 * the outcome from the completed job (its return value).
 */
export class SentLog {
  private readonly key: string;
  private readonly timings: SentLogTimings;
  /** This process's name in the consumer group. */
  readonly consumer = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  private running: Promise<void> | undefined;
  private stopping = false;
  private lastClaim = 0;
  /** The blocking connection's client id (CLIENT ID), so that close() can end its wait. */
  private blockingId: number | undefined;
  /** Appends waiting for the end of the event-loop turn (off a cluster), and their write. */
  private appends: PendingAppend[] = [];
  private appending: Promise<void> | undefined;

  /**
   * `redis` is the command client (appends, confirmations); `blocking` a connection of the
   * flusher's own for its blocking reads, which retries while Redis is away.
   */
  constructor(
    private readonly deps: Deps,
    private readonly redis: Redis,
    private readonly blocking: Redis,
    timings: Partial<SentLogTimings> = {},
  ) {
    this.key = sentLogKey(deps.config.redisPrefix);
    const client = redis as Redis & Partial<Record<typeof APPEND_COMMAND, AppendCommand>>;
    if (!client[APPEND_COMMAND]) redis.defineCommand(APPEND_COMMAND, { lua: APPEND_LUA });
    if (!(client as unknown as Record<string, unknown>)[NOTE_COMMAND])
      redis.defineCommand(NOTE_COMMAND, { lua: NOTE_LUA, numberOfKeys: 2 });
    const claimIdleMs = timings.claimIdleMs ?? DEFAULT_TIMINGS.claimIdleMs;
    this.timings = {
      ...DEFAULT_TIMINGS,
      claimEveryMs: Math.min(SENT_LOG_CLAIM_EVERY_MS, Math.ceil(claimIdleMs / 3)),
      ...timings,
    };
  }

  /**
   * Records that a message was sent; resolves once Redis holds the outcome, with the message as
   * sent, and the minute's sent count (recent-counts.ts). `relayed`: a relay took it, so the
   * outcome is also kept under the message's own key (relayAnswerKey), written before the
   * entry: the job's next run, should this process die before the job is completed, finds it
   * there (answerOfEarlierRun) instead of posting the message again. Off a cluster the appends
   * of one event-loop turn go in one script call (sent-log-append.lua: atomic, as the MULTI per
   * message before it was, and the turn's counts in one HINCRBY per minute).
   */
  async append(ids: DeliveryIds, outcome: SentOutcome, options: AppendOptions = {}): Promise<void> {
    const entry = JSON.stringify({ ids, outcome, rendered: options.rendered ?? null } satisfies Entry);
    const { config } = this.deps;
    const prefix = config.redisPrefix;
    const answerKey = relayAnswerKey(
      prefix,
      ids.msg_id,
      options.answerTag === undefined ? botSlotTag(config, ids.bot_id) : options.answerTag,
    );
    // A folded message went out inside another (its carrier), which is counted itself.
    const counted = outcome.folded_into === undefined;
    if (!isCluster(this.redis)) {
      return new Promise<void>((resolve, reject) => {
        this.appends.push({
          answerKey: options.relayed ? answerKey : null,
          answer: options.relayed ? JSON.stringify(outcome) : '',
          entry,
          countAt: counted ? outcome.sent_at : null,
          resolve,
          reject,
        });
        this.appending ??= new Promise<void>((turn) => setImmediate(turn)).then(() => this.writeAppends());
      });
    }
    try {
      // A cluster's MULTI or script holds one slot: the answer, the entry and the count go one by
      // one, in that order (a re-run that finds the answer appends the entry again:
      // entryKeptWithAnswer).
      if (options.relayed)
        await this.redis.set(answerKey, JSON.stringify(outcome), 'PX', RELAY_ANSWER_KEEP_MS);
      await this.redis.xadd(this.key, '*', 'r', entry);
      // The entry holds the outcome: a count that fails now is lost, not worth a re-run.
      if (counted) await countOutcome(this.redis, prefix, 'sent', outcome.sent_at).catch(() => undefined);
    } catch (err) {
      throw asRedisDependencyError(err);
    }
  }

  /** Writes the appends waiting for it, SENT_LOG_APPEND_BATCH per script call. */
  private async writeAppends(): Promise<void> {
    const client = this.redis as unknown as Record<typeof APPEND_COMMAND, AppendCommand>;
    try {
      while (this.appends.length > 0) {
        const batch = this.appends.splice(0, SENT_LOG_APPEND_BATCH);
        const now = Date.now();
        // The turn's sent counts, per minute hash (nearly always one).
        const perMinute = new Map<number, number>();
        for (const a of batch) {
          if (a.countAt === null) continue;
          const minute = minuteOf(a.countAt);
          perMinute.set(minute, (perMinute.get(minute) ?? 0) + 1);
        }
        const counts = [...perMinute].map(([minute, n]) => ({
          ...countTarget(this.deps.config.redisPrefix, minute, now),
          n,
        }));
        const keys = [this.key, ...counts.map((c) => c.key)];
        const records: Array<string | number> = [];
        for (const a of batch) {
          if (a.answerKey !== null) keys.push(a.answerKey);
          records.push(a.answerKey === null ? 0 : keys.length, a.answer, a.entry);
        }
        try {
          await client[APPEND_COMMAND](
            keys.length,
            ...keys,
            counts.length,
            batch.length,
            RELAY_ANSWER_KEEP_MS,
            ...records,
            ...counts.flatMap((c) => [c.n, c.expireAt ?? 0]),
          );
          for (const a of batch) a.resolve();
        } catch (err) {
          for (const c of counts) if (c.expireAt !== null) expiryNotSent(c.key);
          const error = asRedisDependencyError(err);
          for (const a of batch) a.reject(error);
        }
      }
    } finally {
      this.appending = undefined;
    }
  }

  /**
   * Whether a kept relay answer (answerOfEarlierRun) means its entry is in the log too: off a
   * cluster both go in one script call; on a cluster the answer goes first, alone, and a run that
   * finds it appends the entry again (the records take a second entry of the same message).
   */
  get entryKeptWithAnswer(): boolean {
    return !isCluster(this.redis);
  }

  /**
   * Notes under the message's answer key that its relay is about to be asked, for
   * DELIVERY_IN_DOUBT=hold (`asking` names the job, its attempt and the part: askingNote in
   * process-message.ts). The answer, once kept, takes its place; a re-run that finds the note
   * instead knows the relay may have the message (answerOfEarlierRun). With `lock` (the job's
   * lock key and the run's token), only while the lock is the run's: false, and no note, once
   * the job was taken over.
   */
  async noteAsking(
    msgId: string,
    tag: string | null,
    asking: string,
    lock: { readonly key: string; readonly token: string } | null,
  ): Promise<boolean> {
    const { config } = this.deps;
    const key = relayAnswerKey(config.redisPrefix, msgId, tag);
    const note = JSON.stringify({ asking });
    try {
      if (lock === null) {
        await this.redis.set(key, note, 'PX', RELAY_ANSWER_KEEP_MS);
        return true;
      }
      const client = this.redis as unknown as Record<
        typeof NOTE_COMMAND,
        (lockKey: string, answerKey: string, token: string, note: string, keepMs: number) => Promise<number>
      >;
      return (await client[NOTE_COMMAND](lock.key, key, lock.token, note, RELAY_ANSWER_KEEP_MS)) === 1;
    } catch (err) {
      throw asRedisDependencyError(err);
    }
  }

  /** Takes back noteAsking's note: the relay answered that it did not take the message. */
  async forgetAsking(msgId: string, tag: string | null): Promise<void> {
    try {
      await this.redis.del(relayAnswerKey(this.deps.config.redisPrefix, msgId, tag));
    } catch (err) {
      throw asRedisDependencyError(err);
    }
  }

  /**
   * What an earlier run of `msgId`'s job (in the queue of slot tag `tag`) left under its answer
   * key: the relay's answer (the message was sent), the note that the relay was being asked
   * (noteAsking), or nothing.
   */
  async answerOfEarlierRun(msgId: string, tag: string | null): Promise<EarlierAnswer> {
    let raw: string | null;
    try {
      raw = await this.redis.get(relayAnswerKey(this.deps.config.redisPrefix, msgId, tag));
    } catch (err) {
      throw asRedisDependencyError(err);
    }
    if (raw === null) return null;
    const kept = JSON.parse(raw) as SentOutcome | { asking: string };
    return 'asking' in kept ? { kind: 'asking', asking: kept.asking } : { kind: 'answered', outcome: kept };
  }

  /** Starts the flusher of this process. */
  async start(): Promise<void> {
    await this.ensureGroup();
    // A cluster client's CLIENT ID and UNBLOCK go to whichever node it picks, not necessarily the
    // one its read blocks on (and UNBLOCK could end another client's wait there): on a cluster a
    // closing read ends when its block time is up.
    if (isCluster(this.blocking)) {
      this.running = this.loop();
      return;
    }
    const learnId = async () => {
      this.blockingId = Number(await this.blocking.client('ID'));
    };
    // A reconnected connection has a new id.
    this.blocking.on('ready', () => void learnId().catch(() => {}));
    await learnId();
    this.running = this.loop();
  }

  /**
   * Creates the stream's consumer group (and the stream) unless they exist. From id 0: entries
   * appended before it existed are read too.
   */
  private async ensureGroup(): Promise<void> {
    try {
      await this.redis.xgroup('CREATE', this.key, GROUP, '0', 'MKSTREAM');
    } catch (err) {
      // BUSYGROUP is Redis's error code for "the group exists", which is what we want.
      if (redisErrorCode(err) !== 'BUSYGROUP') throw err;
    }
  }

  /** Stops reading, then writes what this process still holds once; safe to call twice. */
  async close(): Promise<void> {
    this.stopping = true;
    // End a blocking read now rather than when its SENT_LOG_BLOCK_MS is up: shutdown waits on
    // it. (UNBLOCK answers it as a timeout, with no entries; best effort, it ends anyway.)
    if (this.blockingId !== undefined) await this.redis.client('UNBLOCK', this.blockingId).catch(() => {});
    await this.running;
    this.running = undefined;
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      try {
        const entries = await this.nextBatch(true);
        if (entries.length > 0) await this.flush(entries);
        if (Date.now() - this.lastClaim >= this.timings.claimEveryMs) await this.claimAbandoned();
      } catch (err) {
        if (this.stopping) break;
        // NOGROUP: the stream went away with its group (a Redis restarted without persistence,
        // a flush, a restore) and the next append made a bare stream. Until the group is made
        // again, nothing would ever be read from it.
        if (redisErrorCode(err) === 'NOGROUP') {
          this.deps.log.warn('sent-record stream lost its consumer group; creating it again');
          if (
            await this.ensureGroup().then(
              () => true,
              () => false,
            )
          )
            continue;
        }
        this.deps.log.warn('sent records not written yet; retrying', {
          error: err instanceof Error ? err.message : String(err),
        });
        await sleep(this.timings.retryMs);
      }
    }
    // Stopping: write what is left (the last jobs' outcomes included) while the store answers,
    // for SENT_LOG_CLOSE_DRAIN_MS at most; whatever stays is taken over by another worker, or by
    // the next start.
    const until = Date.now() + this.timings.closeDrainMs;
    try {
      while (Date.now() < until) {
        const entries = await this.nextBatch(false);
        if (entries.length === 0) break;
        await this.flush(entries);
      }
    } catch (err) {
      this.deps.log.warn('sent records left for another worker', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /**
   * What to write next: entries this consumer read but could not write (store down) first, then
   * new ones. `waiting`: block for new entries, and linger for a fuller batch after a short read.
   */
  private async nextBatch(waiting: boolean): Promise<Read[]> {
    const own = await this.read('0', false);
    if (own.length > 0) return own;
    const entries = await this.read('>', waiting);
    if (!waiting || entries.length === 0 || entries.length >= SENT_LOG_BATCH || this.stopping) return entries;
    await sleep(this.timings.lingerMs);
    return [...entries, ...(await this.read('>', false, SENT_LOG_BATCH - entries.length))];
  }

  private async read(from: '0' | '>', block: boolean, count = SENT_LOG_BATCH): Promise<Read[]> {
    const args = ['GROUP', GROUP, this.consumer, 'COUNT', count] as const;
    const reply = (
      block
        ? await this.blocking.xreadgroup(...args, 'BLOCK', this.timings.blockMs, 'STREAMS', this.key, from)
        : await this.redis.xreadgroup(...args, 'STREAMS', this.key, from)
    ) as StreamReply;
    return parseEntries(reply?.[0]?.[1] ?? []);
  }

  private async flush(entries: readonly Read[]): Promise<void> {
    const records = entries.flatMap((e) => (e.entry ? [e.entry] : []));
    if (records.length > 0) await markSentMany(this.deps, records);
    const ids = entries.map((e) => e.id);
    await this.redis
      .multi()
      .xack(this.key, GROUP, ...ids)
      .xdel(this.key, ...ids)
      .exec();
  }

  /** Takes over entries a dead worker read but never wrote, and forgets long-gone consumers. */
  private async claimAbandoned(): Promise<void> {
    this.lastClaim = Date.now();
    let cursor = '0-0';
    do {
      const [next, claimed] = (await this.redis.xautoclaim(
        this.key,
        GROUP,
        this.consumer,
        this.timings.claimIdleMs,
        cursor,
        'COUNT',
        SENT_LOG_BATCH,
      )) as [string, Array<[string, string[]]>];
      const entries = parseEntries(claimed);
      if (entries.length > 0) await this.flush(entries);
      cursor = next;
    } while (cursor !== '0-0' && !this.stopping);
    const consumers = (await this.redis.xinfo('CONSUMERS', this.key, GROUP)) as unknown[][];
    for (const c of consumers) {
      const info = fieldsOf(c);
      if (
        info.name !== this.consumer &&
        info.pending === 0 &&
        Number(info.idle) > this.timings.forgetIdleMs
      ) {
        await this.redis.xgroup('DELCONSUMER', this.key, GROUP, String(info.name));
      }
    }
  }
}

function parseEntries(raw: Array<[string, string[] | null]>): Read[] {
  return raw.map(([id, fields]) => {
    // A deleted entry still pending shows with no fields: nothing to write, only to confirm.
    const value = fields?.[1];
    if (value === undefined) return { id, entry: null };
    try {
      return { id, entry: JSON.parse(value) as Entry };
    } catch {
      return { id, entry: null };
    }
  });
}

function fieldsOf(flat: unknown[]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) o[String(flat[i])] = flat[i + 1];
  return o;
}
