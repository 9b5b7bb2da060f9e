import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { asRedisDependencyError } from '../../ratelimit/redis-errors.js';
import { pipeIdempotencyKey } from '../../redis/keys.js';

/*
 * Idempotency-Key for send-pipemsg (Herald's addition: senders retry on timeouts).
 *
 * The same key on the same pipe within IDEMPOTENCY_WINDOW_MS answers the first msg_id and
 * enqueues nothing; the same key with another body (SHA-256 of the raw body) is a conflict.
 * Claiming is one Lua call, so two web processes racing on one key cannot both enqueue.
 *
 * A claim is `pending` until the message is stored, then `accepted` for the window. A claim
 * whose holder failed to store the message is released at once; if even the release cannot
 * reach Redis, the claim lapses after IDEMPOTENCY_LEASE_MS. A holder that stored the message
 * but died before confirming is detected by the next retry (the job exists) and confirmed then.
 * A store or claim that got no answer (Redis stopped answering) may still be applied later: its
 * release is sent on the same connection, so Redis runs it after them, and it releases only a
 * claim whose job does not exist.
 */

/** How long a key answers with its first msg_id, in ms (24 h). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** How long an unconfirmed claim blocks its key, in ms; longer than any enqueue can take. */
export const IDEMPOTENCY_LEASE_MS = 30_000;
/** Longest Idempotency-Key accepted, in characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

const CLAIM_LUA = readFileSync(new URL('./idempotency.lua', import.meta.url), 'utf8');
const SETTLE_LUA = readFileSync(new URL('./idempotency-settle.lua', import.meta.url), 'utf8');
const CLAIM = 'heraldIdempotencyClaim';
const SETTLE = 'heraldIdempotencySettle';

type ClaimCommand = (key: string, ...args: Array<string | number>) => Promise<string[]>;
type SettleCommand = (
  key: string,
  msgId: string,
  ...action: ['accept'] | ['release', jobKey: string]
) => Promise<number>;
type Commands = Record<string, ClaimCommand | SettleCommand | undefined>;

function commands(redis: Redis): { claim: ClaimCommand; settle: SettleCommand } {
  const client = redis as Redis & Commands;
  if (!client[CLAIM]) redis.defineCommand(CLAIM, { numberOfKeys: 1, lua: CLAIM_LUA });
  if (!client[SETTLE]) redis.defineCommand(SETTLE, { numberOfKeys: 1, lua: SETTLE_LUA });
  return {
    claim: (client[CLAIM] as ClaimCommand).bind(redis),
    settle: (client[SETTLE] as SettleCommand).bind(redis),
  };
}

export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * The Redis key of one Idempotency-Key of one pipe (the key itself is hashed: any length). `tag`:
 * on a cluster, its bot's partition tag (redis/partitions.ts botSlotTag), since the claim's script
 * also reads the job the claim names.
 */
export const idempotencyRedisKey = (
  prefix: string,
  pipeId: string,
  key: string,
  tag: string | null = null,
): string => pipeIdempotencyKey(prefix, pipeId, sha256Hex(key), tag);

export type ClaimOutcome = 'claimed' | 'duplicate' | 'conflict' | 'in_progress';

export interface ClaimResult {
  readonly outcome: ClaimOutcome;
  /** The claim's message: this request's for 'claimed', the first request's otherwise. */
  readonly msgId: string;
  readonly acceptedAt: number;
  readonly nonce: string;
}

export interface ClaimRequest {
  readonly redisKey: string;
  readonly bodyHash: string;
  readonly msgId: string;
  readonly acceptedAt: number;
  readonly nonce: string;
  /** Prefix of BullMQ job hashes, the msg_id appended gives the job's key. */
  readonly jobKeyPrefix: string;
}

export async function claimIdempotencyKey(redis: Redis, req: ClaimRequest): Promise<ClaimResult> {
  let reply: string[];
  try {
    reply = await commands(redis).claim(
      req.redisKey,
      req.bodyHash,
      req.msgId,
      req.acceptedAt,
      req.nonce,
      IDEMPOTENCY_LEASE_MS,
      req.jobKeyPrefix,
      IDEMPOTENCY_WINDOW_MS,
    );
  } catch (err) {
    throw asRedisDependencyError(err);
  }
  const [outcome = 'in_progress', msgId = '', at = '0', nonce = ''] = reply;
  return { outcome: outcome as ClaimOutcome, msgId, acceptedAt: Number(at), nonce };
}

/** Confirms a claim once its message is stored. */
export async function acceptClaim(redis: Redis, redisKey: string, msgId: string): Promise<void> {
  try {
    await commands(redis).settle(redisKey, msgId, 'accept');
  } catch (err) {
    throw asRedisDependencyError(err);
  }
}

/**
 * Forgets a claim whose message was not stored, or confirms it if its job (`jobKey`) exists
 * after all; best effort (the lease bounds a failure). Send it on the connection of the command
 * that failed: Redis runs it after that command, if that ever runs.
 */
export async function releaseClaim(
  redis: Redis,
  redisKey: string,
  msgId: string,
  jobKey: string,
): Promise<void> {
  await commands(redis)
    .settle(redisKey, msgId, 'release', jobKey)
    .catch(() => {});
}
