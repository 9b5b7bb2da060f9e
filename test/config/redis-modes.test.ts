import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';

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
