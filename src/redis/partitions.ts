import type { Config } from '../config/index.js';

/*
 * Hash slots and the pipe queue's partitions. On a Redis Cluster every key lives in one of 16384
 * slots (CRC16 of the key, or of its first non-empty `{...}` hash tag) and each shard serves a
 * range of them; a Lua script, a MULTI and every BullMQ script must keep their keys in one slot.
 * Standalone and Sentinel have one master, so names only take tags where a cluster needs them.
 */

/** Slots of a Redis Cluster. */
export const CLUSTER_SLOTS = 16384;

const CRC16_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[i] = crc;
  }
  return table;
})();

/** CRC16-CCITT (XMODEM), the checksum Redis Cluster hashes keys with. */
function crc16(text: string): number {
  let crc = 0;
  for (const byte of Buffer.from(text, 'utf8'))
    crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ byte) & 0xff]!;
  return crc;
}

/** The cluster slot of `key`, as Redis computes it (hash tag rules included). */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return crc16(key.slice(open + 1, close)) % CLUSTER_SLOTS;
  }
  return crc16(key) % CLUSTER_SLOTS;
}

/** The BullMQ queue of pipe messages (the one name of an unpartitioned queue). */
export const PIPE_QUEUE = 'pipe-messages';

type PartitionConfig = Pick<Config, 'redisMode' | 'redisQueuePartitions'>;

/** Base-2 van der Corput: 0, 1/2, 1/4, 3/4, 1/8, ...; the first n values of it are spread evenly for any n. */
function spreadPoint(i: number): number {
  let point = 0;
  let scale = 0.5;
  for (let n = i; n > 0; n >>= 1, scale /= 2) if (n & 1) point += scale;
  return point;
}

const tagCache = new Map<number, string>();

/**
 * The hash tag of partition `i`: the first `pipe-messages-<i>.<k>` whose slot lies at the i-th
 * point of a low-discrepancy sequence, so that the first N partitions spread evenly over shards
 * holding even slot ranges (plain numbered names bunch up; docs/scaling.md), and a partition's
 * name does not depend on how many partitions there are.
 */
export function partitionTag(i: number): string {
  const cached = tagCache.get(i);
  if (cached !== undefined) return cached;
  const window = 64;
  const from = Math.floor(spreadPoint(i) * CLUSTER_SLOTS);
  let tag = '';
  for (let k = 0; ; k++) {
    tag = `${PIPE_QUEUE}-${i}.${k}`;
    const slot = crc16(tag) % CLUSTER_SLOTS;
    if (slot >= from && slot < from + window) break;
  }
  tagCache.set(i, tag);
  return tag;
}

/**
 * The BullMQ queue names of the pipe queue's partitions, in partition order. Each is its hash tag
 * in braces (`{pipe-messages-3.81}`), which puts every key BullMQ makes for it in one slot; but
 * off a cluster partition 0 keeps the name `pipe-messages` (and so today's keys): one partition
 * changes nothing for an existing install, and raising REDIS_QUEUE_PARTITIONS there keeps
 * consuming the jobs already queued.
 */
export function pipeQueueNames(config: PartitionConfig): string[] {
  return Array.from({ length: config.redisQueuePartitions }, (_, i) => partitionQueueName(config, i));
}

/** The BullMQ queue name of partition `i` (pipeQueueNames). */
function partitionQueueName(config: PartitionConfig, i: number): string {
  return i === 0 && config.redisMode !== 'cluster' ? PIPE_QUEUE : `{${partitionTag(i)}}`;
}

/** FNV-1a (32 bits) of the bot id: spreads ids of any shape, the same in every process. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}

/** The partition a bot's messages go to: one per bot, so its order and its budget stay together. */
export function partitionOfBot(config: PartitionConfig, botId: string): number {
  const n = config.redisQueuePartitions;
  return n === 1 ? 0 : fnv1a(botId) % n;
}

/**
 * On a cluster, the hash tag that keys of a bot's messages must share with its partition's queue
 * (a bucket and a message's reservation, an Idempotency-Key and the job it names, a relay answer
 * and its job's hash); null elsewhere, where keys keep their untagged names.
 */
export function botSlotTag(config: PartitionConfig, botId: string): string | null {
  return config.redisMode === 'cluster' ? partitionTag(partitionOfBot(config, botId)) : null;
}

/** On a cluster, `name` as a hash tag (the keys of one pipe's captures, one message group); else null. */
export function clusterTag(config: Pick<Config, 'redisMode'>, name: string): string | null {
  return config.redisMode === 'cluster' ? name : null;
}

/**
 * On a cluster, the hash tag of the queue a job is in (its name, `{pipe-messages-3.81}`): the
 * tag keys that go with that job must share (its relay answer beside its hash), even where the
 * bot's partition has moved since (REDIS_QUEUE_PARTITIONS changed); null elsewhere.
 */
export function queueSlotTag(config: Pick<Config, 'redisMode'>, queueName: string): string | null {
  if (config.redisMode !== 'cluster' || !queueName.startsWith('{') || !queueName.endsWith('}')) return null;
  return queueName.slice(1, -1);
}

/** The BullMQ queue name of `botId`'s partition. */
export function pipeQueueNameOfBot(config: PartitionConfig, botId: string): string {
  return partitionQueueName(config, partitionOfBot(config, botId));
}
