import { PIPE_QUEUE } from './partitions.js';

/*
 * Every Redis key and pub/sub channel Herald names, in one place: `prefix` is REDIS_PREFIX.
 * BullMQ names its own keys under `${prefix}:<queue name>:`; pipeJobKey is the one Herald reads.
 *
 * `tag`: on a Redis Cluster, keys a Lua script uses together must share a hash slot, so they
 * carry a hash tag (redis/partitions.ts botSlotTag, clusterTag). Elsewhere the tag is null and
 * the names are the untagged ones of before, so a standalone or Sentinel Redis keeps its keys.
 */

export { PIPE_QUEUE };

/** `{tag}:` to put before a key's own part, or nothing without a tag. */
const t = (tag: string | null): string => (tag === null ? '' : `{${tag}}:`);

/** What a per-record lock guards (locks/record-lock.ts). */
export type LockKind =
  | 'bot'
  | 'pipe'
  | 'template'
  | 'intimacy'
  | 'user'
  | 'guild'
  | 'channel'
  | 'member'
  | 'delivery'
  | 'group';

/** The lock on one record; a record named by two ids (an intimacy, a member) passes both. */
export const lockKey = (prefix: string, kind: LockKind, ...ids: readonly string[]): string =>
  `${prefix}:lock:${kind}:${ids.join(':')}`;

/**
 * One message group of a pipe (workers/delivery/grouping.ts; `groupId` from grouping.ts
 * groupHash): its window keys (group-fold.lua names them) and its update-mode carrier start with it.
 */
export const groupBaseKey = (prefix: string, groupId: string, tag: string | null = null): string =>
  `${prefix}:group:${t(tag)}${groupId}`;
/** What the grouping step decided for one message (folded, or passed), kept for its re-runs. */
export const groupDecisionKey = (prefix: string, msgId: string, tag: string | null = null): string =>
  `${prefix}:group-decided:${t(tag)}${msgId}`;

/** A bot's REST budget on one route group. */
export const botRestBucketKey = (prefix: string, botId: string, bucket: string): string =>
  `${prefix}:rl:bot:${botId}:${bucket}`;
/** A pipe's inbound budget. */
export const pipeBucketKey = (prefix: string, pipeId: string, bucket: string): string =>
  `${prefix}:rl:pipe:${pipeId}:${bucket}`;
/** A bot's message budget (deliveries). */
export const messageBucketKey = (prefix: string, botId: string, tag: string | null = null): string =>
  `${prefix}:rl:msg:${t(tag)}${botId}`;
/** Where a message refused by its bot's bucket records the tokens it reserved (token-bucket.lua). */
export const messageReservationKey = (prefix: string, msgId: string, tag: string | null = null): string =>
  `${prefix}:rl:paid:${t(tag)}${msgId}`;

/** One Idempotency-Key of one pipe, by the key's SHA-256 (the key itself may be any length). */
export const pipeIdempotencyKey = (
  prefix: string,
  pipeId: string,
  keyHash: string,
  tag: string | null = null,
): string => `${prefix}:pipe-idem:${t(tag)}${pipeId}:${keyHash}`;
/** The ids of a pipe's captured payloads, newest first (domain/pipes/captures.ts). */
export const pipeCapturesKey = (prefix: string, pipeId: string, tag: string | null = null): string =>
  `${prefix}:pipe-captures:${t(tag)}${pipeId}`;
/** One captured payload of a pipe (a string: metadata, newline, body), with its own expiry. */
export const pipeCaptureKey = (
  prefix: string,
  pipeId: string,
  captureId: string,
  tag: string | null = null,
): string => `${prefix}:pipe-capture:${t(tag)}${pipeId}:${captureId}`;
/** The hash BullMQ keeps a pipe message's job in (to tell whether a job was stored). */
export const pipeJobKey = (prefix: string, msgId: string, queueName: string = PIPE_QUEUE): string =>
  `${prefix}:${queueName}:${msgId}`;

/** The stream of sent outcomes not yet written to the store (workers/recovery/sent-log.ts). */
export const sentLogKey = (prefix: string): string => `${prefix}:deliveries:sent-log`;
/** A relay's answer to a message, kept until its job completes (a re-run after a crash reads it). */
export const relayAnswerKey = (prefix: string, msgId: string, tag: string | null = null): string =>
  `${prefix}:deliveries:relayed:${t(tag)}${msgId}`;
/** The parts of a message split over several that its runs sent (workers/delivery/message-parts.ts). */
export const messagePartsKey = (prefix: string, msgId: string): string =>
  `${prefix}:deliveries:parts:${msgId}`;
/** A message's current wait (rate limit or retry backoff), shown before its record lands. */
export const waitNoteKey = (prefix: string, msgId: string): string => `${prefix}:deliveries:waiting:${msgId}`;

/** Messages sent, failed for good and retried in the minute starting at `minuteMs` (a hash). */
export const deliveryCountsKey = (prefix: string, minuteMs: number): string =>
  `${prefix}:deliveries:counts:${minuteMs}`;
/** The worker processes' heartbeats: a hash of worker id -> what it is and when it last beat. */
export const workerHeartbeatsKey = (prefix: string): string => `${prefix}:workers:heartbeats`;

/** Pub/sub: every change of a pipe. */
export const pipesChangedChannel = (prefix: string): string => `${prefix}:pipes-changed`;
/** Pub/sub: every change of the directory, a template or a bot. */
export const directoryChangeChannel = (prefix: string): string => `${prefix}:directory-changed`;
/** The connection name of a process's directory feed subscriber (CLIENT LIST). */
export const directoryFeedName = (prefix: string): string => `${prefix}:directory-feed`;

/** An operator's console session, by the SHA-256 (hex) of its cookie value, never the value. */
export const consoleSessionKey = (prefix: string, cookieHash: string): string =>
  `${prefix}:console:session:${cookieHash}`;
/** Failed console sign-ins from one client address, in the current window. */
export const signInFailuresKey = (prefix: string, address: string): string =>
  `${prefix}:console:sign-in-failures:${address}`;
