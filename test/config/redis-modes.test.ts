import { describe, expect, it } from 'vitest';
import { ConfigError, formatPartitions, loadConfig, workerPartitions } from '../../src/config/index.js';

const ADMIN = { ADMIN_TOKEN: 'a'.repeat(32) };

describe('REDIS_MODE', () => {
  it('defaults to one standalone server and one queue partition', () => {
    const c = loadConfig(ADMIN);
    expect(c).toMatchObject({ redisMode: 'standalone', redisNodes: [], redisQueuePartitions: 1 });
  });

  it('cluster: REDIS_URL names the seeds, comma separated, with or without a scheme after the first', () => {
    const c = loadConfig({
      ...ADMIN,
      REDIS_MODE: 'cluster',
      REDIS_URL: 'redis://:pw@10.0.0.1:7001,redis://10.0.0.2:7002, 10.0.0.3',
      REDIS_QUEUE_PARTITIONS: '16',
    });
    expect(c.redisNodes).toEqual([
      { host: '10.0.0.1', port: 7001 },
      { host: '10.0.0.2', port: 7002 },
      { host: '10.0.0.3', port: 6379 },
    ]);
    expect(c.redisUrl).toBe('redis://:pw@10.0.0.1:7001');
    expect(c.redisQueuePartitions).toBe(16);
  });

  it('sentinel: REDIS_SENTINELS is required, the master name defaults', () => {
    expect(() => loadConfig({ ...ADMIN, REDIS_MODE: 'sentinel' })).toThrow(/REDIS_SENTINELS is required/);
    const c = loadConfig({ ...ADMIN, REDIS_MODE: 'sentinel', REDIS_SENTINELS: 'a:26379, [::1]:26380' });
    expect(c.redisNodes).toEqual([
      { host: 'a', port: 26379 },
      { host: '::1', port: 26380 },
    ]);
    expect(c.redisSentinelName).toBe('mymaster');
    // An accepted message is on a replica before the answer says so (a failover loses none).
    expect(c.redisWaitReplicas).toBe(1);
    expect(() => loadConfig({ ...ADMIN, REDIS_MODE: 'cluster', REDIS_WAIT_REPLICAS: '1' })).toThrow(
      /not supported/,
    );
  });

  it('refuses what it cannot use', () => {
    expect(() => loadConfig({ ...ADMIN, REDIS_MODE: 'shards' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...ADMIN, REDIS_MODE: 'sentinel', REDIS_SENTINELS: 'nohost' })).toThrow(
      /host:port/,
    );
    expect(() => loadConfig({ ...ADMIN, REDIS_QUEUE_PARTITIONS: '0' })).toThrow(/REDIS_QUEUE_PARTITIONS/);
    expect(() => loadConfig({ ...ADMIN, REDIS_QUEUE_PARTITIONS: '257' })).toThrow(/REDIS_QUEUE_PARTITIONS/);
  });
});

describe('WORKER_PARTITIONS', () => {
  const load = (value: string | undefined, partitions = '16') =>
    loadConfig({ ...ADMIN, REDIS_QUEUE_PARTITIONS: partitions, WORKER_PARTITIONS: value }).workerPartitions;

  it('defaults to every partition (unset, empty or blank)', () => {
    expect(load(undefined)).toEqual(Array.from({ length: 16 }, (_, i) => i));
    expect(load('')).toHaveLength(16);
    expect(load('  ')).toHaveLength(16);
    expect(loadConfig(ADMIN).workerPartitions).toEqual([0]);
  });

  it('takes numbers and ranges, comma separated, sorted and without repeats', () => {
    expect(load('0-7')).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(load('0,3,8-11')).toEqual([0, 3, 8, 9, 10, 11]);
    expect(load(' 11 , 3-4,3, 15 ')).toEqual([3, 4, 11, 15]);
    expect(load('5-5')).toEqual([5]);
    expect(load('0', '1')).toEqual([0]);
  });

  it('refuses partitions past the last, empty items, backward ranges and anything else, saying what it takes', () => {
    const refusals: Array<[string, RegExp]> = [
      ['16', /names partition 16, past the last one/],
      ['8-16', /past the last one/],
      [',', /empty item/],
      ['1,,2', /empty item/],
      ['7-3', /backward range "7-3"/],
      ['-1', /"-1", neither a number nor a range/],
      ['a', /neither a number nor a range/],
      ['1.5', /neither/],
      ['0-', /neither/],
      ['all', /neither/],
      ['99999999', /neither/],
    ];
    for (const [value, why] of refusals) {
      expect(() => load(value), value).toThrow(ConfigError);
      expect(() => load(value), value).toThrow(why);
      expect(() => load(value), value).toThrow(/partitions are 0 to 15, written like 0-7 or 0,3,8-11/);
    }
    expect(() => load('1', '1')).toThrow(/partitions are 0 to 0/);
  });

  it('reads back as written', () => {
    expect(formatPartitions(workerPartitions('0,3,8-11,13-14', 16))).toBe('0,3,8-11,13-14');
    expect(formatPartitions(workerPartitions(undefined, 16))).toBe('0-15');
    expect(formatPartitions([2])).toBe('2');
  });
});
