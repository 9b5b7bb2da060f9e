import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { uniqueName } from './test-app.js';

/** The Redis the tests run on (the real one; nothing is stubbed). */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface FileRedis {
  /** A key prefix of this test file's own; its keys are deleted after the file. */
  readonly prefix: string;
  /** Connected clients (as separate processes would have), open for the whole file. */
  readonly clients: Redis[];
}

/** `count` Redis clients and a unique key prefix for one test file, cleaned up after it. */
export function useFileRedis(name: string, count = 1): FileRedis {
  const file: FileRedis = { prefix: `herald-test-${uniqueName(name)}`, clients: [] };
  beforeAll(async () => {
    for (let i = 0; i < count; i++) file.clients.push(new Redis(TEST_REDIS_URL));
    await Promise.all(file.clients.map((c) => c.ping()));
  });
  afterAll(async () => {
    const first = file.clients[0];
    if (first) {
      const keys = await first.keys(`${file.prefix}:*`);
      if (keys.length) await first.del(...keys);
    }
    for (const c of file.clients) c.disconnect();
  });
  return file;
}
