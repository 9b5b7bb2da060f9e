import type { Redis } from 'ioredis';
import { loadConfig } from '../../src/config/index.js';
import { createRedis, type RedisRole } from '../../src/redis/clients.js';

/**
 * A Redis client for a bench's own processes (baselines, stand-in workers, INFO readers), made by
 * Herald's one factory from the environment (REDIS_MODE, REDIS_URL, ...), so a bench runs on
 * whatever setup Herald is pointed at. Not connected yet.
 */
export function benchRedis(role: RedisRole): Redis {
  const config = loadConfig(process.env, { ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef' });
  return createRedis(config, role);
}
