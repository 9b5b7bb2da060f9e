/**
 * The baseline of `npm run bench:worker`, run as its own process like a Herald worker: a BullMQ
 * worker whose processor does nothing, on the queue named by BENCH_QUEUE. Prints "ready" once
 * it can take jobs; exits on SIGTERM.
 */
import { Worker } from 'bullmq';
import { benchRedis } from './redis.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

// BullMQ's worker connection: retries forever, as BullMQ requires.
const connection = benchRedis('blocking');
await connection.connect();
const worker = new Worker(env('BENCH_QUEUE'), async () => {}, {
  connection,
  prefix: env('REDIS_PREFIX'),
  concurrency: Number(env('WORKER_CONCURRENCY')),
});
await worker.waitUntilReady();
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void worker
    .close()
    .then(() => connection.quit())
    .finally(() => process.exit(0));
});
