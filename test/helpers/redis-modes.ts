import { execFileSync } from 'node:child_process';

/*
 * The Redis setups beyond the one standalone server: scripts/dev-services.sh starts them on
 * loopback (idempotent, one starter at a time), so test files that need them start them
 * themselves, in CI as here.
 */

export type RedisModeName = 'standalone' | 'cluster' | 'sentinel';

/** Where dev-services.sh puts them (its defaults). */
export const CLUSTER_SEEDS = ['127.0.0.1:7001', '127.0.0.1:7002', '127.0.0.1:7003'] as const;
export const SENTINELS = ['127.0.0.1:26380', '127.0.0.1:26381', '127.0.0.1:26382'] as const;
export const SENTINEL_NAME = 'herald';

/** Starts the setup of `mode` unless it is up (standalone: the global setup's). */
export function ensureRedisMode(mode: RedisModeName): void {
  if (mode === 'standalone') return;
  execFileSync('bash', ['scripts/dev-services.sh', mode], { stdio: ['ignore', 'ignore', 'inherit'] });
}

/** The settings that point Herald at `mode`'s setup (to pass as startTestApp's `override`). */
export function redisModeEnv(mode: RedisModeName, partitions = 1): Record<string, string> {
  const common = { REDIS_QUEUE_PARTITIONS: String(partitions) };
  switch (mode) {
    case 'standalone':
      return {
        ...common,
        REDIS_MODE: 'standalone',
        REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      };
    case 'cluster':
      return {
        ...common,
        REDIS_MODE: 'cluster',
        REDIS_URL: CLUSTER_SEEDS.map((s) => `redis://${s}`).join(','),
      };
    case 'sentinel':
      return {
        ...common,
        REDIS_MODE: 'sentinel',
        REDIS_URL: 'redis://127.0.0.1:6380',
        REDIS_SENTINELS: SENTINELS.join(','),
        REDIS_SENTINEL_NAME: SENTINEL_NAME,
      };
  }
}
