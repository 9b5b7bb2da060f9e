import { describe, expect, it } from 'vitest';
import {
  botSlotTag,
  CLUSTER_SLOTS,
  keySlot,
  partitionOfBot,
  partitionTag,
  pipeQueueNameOfBot,
  pipeQueueNames,
  pipeQueueNames as pipeQueuePartitions,
  queueSlotTag,
} from '../../src/redis/partitions.js';

const standalone = (n: number) => ({ redisMode: 'standalone', redisQueuePartitions: n }) as const;
const cluster = (n: number) => ({ redisMode: 'cluster', redisQueuePartitions: n }) as const;

describe('hash slots', () => {
  it('computes the slots Redis does (CLUSTER KEYSLOT), hash tags included', () => {
    // Values from redis-cli CLUSTER KEYSLOT on Redis 7.0.
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('{user1000}.following')).toBe(keySlot('user1000'));
    // An empty first tag is no tag: the whole key is hashed.
    expect(keySlot('foo{}{bar}')).toBe(8363);
    expect(keySlot('herald:{pipe-messages-3.9}:wait')).toBe(keySlot('pipe-messages-3.9'));
  });
});

describe('pipe queue partitions', () => {
  it('one partition off a cluster keeps the queue of before, pipe-messages', () => {
    expect(pipeQueueNames(standalone(1))).toEqual(['pipe-messages']);
    expect(pipeQueuePartitions({ redisMode: 'sentinel', redisQueuePartitions: 1 })).toEqual([
      'pipe-messages',
    ]);
    expect(botSlotTag(standalone(1), 'b')).toBeNull();
    expect(pipeQueueNameOfBot(standalone(1), 'any')).toBe('pipe-messages');
  });

  it('names each partition by its hash tag, the same whatever the count', () => {
    const four = pipeQueueNames(cluster(4));
    expect(four).toHaveLength(4);
    expect(four.every((n) => /^\{pipe-messages-\d+\.\d+\}$/.test(n))).toBe(true);
    expect(pipeQueueNames(cluster(16)).slice(0, 4)).toEqual(four);
    expect(pipeQueueNames(cluster(1))).toEqual([four[0]]);
    // Off a cluster partition 0 keeps the old queue, so raising the count strands no job.
    expect(pipeQueueNames(standalone(4))).toEqual(['pipe-messages', ...four.slice(1)]);
  });

  it('spreads 16 partitions within 20 % of even over 3 shards of even slot ranges', () => {
    const shards = [0, 0, 0];
    for (const name of pipeQueueNames(cluster(16))) {
      shards[Math.floor((keySlot(name) * 3) / CLUSTER_SLOTS)]!++;
    }
    for (const n of shards) expect(Math.abs(n - 16 / 3) / (16 / 3)).toBeLessThanOrEqual(0.2);
  });

  it('sends a bot to one partition, the same in every process, and bots spread over all', () => {
    const config = cluster(8);
    expect(partitionOfBot(config, '1795796472817355')).toBe(partitionOfBot(config, '1795796472817355'));
    const used = new Set(Array.from({ length: 200 }, (_, i) => partitionOfBot(config, `bot-${i}`)));
    expect(used.size).toBe(8);
    // On a cluster a bot's keys carry its partition's tag: the same slot as its queue.
    const tag = botSlotTag(config, 'bot-7');
    expect(tag).toBe(partitionTag(partitionOfBot(config, 'bot-7')));
    expect(keySlot(`herald:rl:msg:{${tag}}:bot-7`)).toBe(
      keySlot(`herald:${pipeQueueNameOfBot(config, 'bot-7')}:wait`),
    );
  });
});

describe('queueSlotTag', () => {
  it("is the tag of the queue a job is in on a cluster, whatever the bot's partition is now; null elsewhere", () => {
    const cluster = { redisMode: 'cluster' as const, redisQueuePartitions: 4 };
    const name = pipeQueuePartitions(cluster)[2] as string;
    expect(queueSlotTag(cluster, name)).toBe(partitionTag(2));
    expect(keySlot(`herald:x:{${queueSlotTag(cluster, name)}}`)).toBe(keySlot(`herald:${name}:job-1`));
    expect(queueSlotTag({ redisMode: 'standalone' }, name)).toBeNull();
    expect(queueSlotTag(cluster, 'pipe-messages')).toBeNull();
  });
});
