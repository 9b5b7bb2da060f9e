import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log/logger.js';
import type { PipeJob } from '../../../src/queue/pipe-messages.js';
import { pipeJobKey, relayAnswerKey } from '../../../src/redis/keys.js';
import { DROP_INPUTS_BATCH, InputDropper } from '../../../src/workers/recovery/drop-inputs.js';
import { useFileRedis } from '../../helpers/redis.js';

/** The script's guards on the real Redis; the worker's use of it is in delivery.test.ts. */
const redis = useFileRedis('drop-inputs');
const silent = createLogger('error', () => {});
/** A standalone Redis with the one unpartitioned queue. */
const plainConfig = (prefix: string) =>
  ({ redisPrefix: prefix, redisMode: 'standalone', redisQueuePartitions: 1 }) as const;

const job = (msgId: string): PipeJob => ({
  msg_id: msgId,
  pipe_id: 'p',
  bot_id: 'b',
  channel_id: 'c',
  guild_id: 'g',
  template_id: 't',
  type: null,
  quote: null,
  nonce: '',
  temp_target_id: null,
  input: 'x'.repeat(5_000),
  input_encoding: 'base64',
  accepted_at: 1_700_000_000_000,
});

describe('InputDropper', () => {
  it('drops the input of finished jobs only, and never makes a hash retention removed', async () => {
    const [client] = redis.clients;
    if (!client) throw new Error('no client');
    const dropper = new InputDropper(client, plainConfig(redis.prefix), silent);
    const key = (id: string) => pipeJobKey(redis.prefix, id);
    await client.hset(key('done'), 'data', JSON.stringify(job('done')), 'finishedOn', '1');
    await client.hset(key('active'), 'data', JSON.stringify(job('active')));

    for (const id of ['done', 'active', 'removed']) dropper.add(id, job(id));
    await dropper.settled();

    const { input_encoding: _, ...rest } = job('done');
    expect(JSON.parse((await client.hget(key('done'), 'data')) ?? '')).toEqual({ ...rest, input: '' });
    expect(await client.hget(key('done'), 'finishedOn')).toBe('1');
    expect(JSON.parse((await client.hget(key('active'), 'data')) ?? '')).toEqual(job('active'));
    expect(await client.exists(key('removed'))).toBe(0);
  });

  it('deletes the relay answer kept for a run after a crash once its job is done', async () => {
    const [client] = redis.clients;
    if (!client) throw new Error('no client');
    const dropper = new InputDropper(client, plainConfig(redis.prefix), silent);
    await client.hset(
      pipeJobKey(redis.prefix, 'relayed'),
      'data',
      JSON.stringify(job('relayed')),
      'finishedOn',
      '1',
    );
    await client.set(relayAnswerKey(redis.prefix, 'relayed'), '{}');
    dropper.add('relayed', job('relayed'));
    await dropper.settled();
    expect(await client.exists(relayAnswerKey(redis.prefix, 'relayed'))).toBe(0);
  });

  it(`takes more than ${DROP_INPUTS_BATCH} drops of one turn in several calls`, async () => {
    const [client] = redis.clients;
    if (!client) throw new Error('no client');
    const dropper = new InputDropper(client, plainConfig(redis.prefix), silent);
    const ids = Array.from({ length: DROP_INPUTS_BATCH + 20 }, (_, i) => `many-${i}`);
    const pipeline = client.pipeline();
    for (const id of ids)
      pipeline.hset(pipeJobKey(redis.prefix, id), 'data', JSON.stringify(job(id)), 'finishedOn', '1');
    await pipeline.exec();
    for (const id of ids) dropper.add(id, job(id));
    await dropper.settled();
    const inputs = await Promise.all(
      ids.map(
        async (id) => JSON.parse((await client.hget(pipeJobKey(redis.prefix, id), 'data')) ?? '').input,
      ),
    );
    expect(new Set(inputs)).toEqual(new Set(['']));
  });

  it('a Redis that does not answer: the drop is given up (logged), and the next ones still go out', async () => {
    const gone = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    gone.on('error', () => {});
    const lines: string[] = [];
    const dropper = new InputDropper(
      gone,
      plainConfig(redis.prefix),
      createLogger('debug', (l) => lines.push(l)),
    );
    for (const round of [1, 2]) {
      dropper.add(`nowhere-${round}`, job(`nowhere-${round}`));
      await expect(dropper.settled()).resolves.toBeUndefined();
      expect(lines.filter((l) => l.includes('could not drop the input of delivered jobs'))).toHaveLength(
        round,
      );
    }
    gone.disconnect();
  });
});
