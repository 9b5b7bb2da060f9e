/**
 * The lean reference of `npm run bench:worker`, run as its own process like a Herald worker: a
 * BullMQ worker on the queue named by BENCH_QUEUE that does for each pipe job only what any
 * worker must do to deliver it. It opens the input as Herald's job input encoding writes it
 * (src/queue/job-input.ts: base64, inflate, UTF-8), JSON.parse, renders the same compiled
 * template with Herald's renderer (src/render), JSON.parse + JSON.stringify of the card, and
 * makes one keep-alive POST of the message to the relay sink at BENCH_SINK_URL. No checks,
 * budgets, locks or records; a render or POST failure fails the job.
 *
 * Each step's CPU (process.cpuUsage, user + system) is added up. Jobs by other names are
 * questions from the benchmark, answered as the job's return value:
 * - `stats`: the sums so far (µs) and how many messages they cover;
 * - `post-alone`: CPU per POST of `n` POSTs of the last message body (already encoded),
 *   `concurrency` at a time, with nothing else running in this process: the whole cost of a
 *   POST, socket writes and answer parsing included, which happen outside the job's own code.
 *
 * Prints "ready" once it can take jobs; exits on SIGTERM.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { Worker } from 'bullmq';
import { type InputEncoding, inputText } from '../../src/queue/job-input.js';
import { compileTemplate } from '../../src/render/index.js';
import { benchRedis } from './redis.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const compiled = compileTemplate(readFileSync(env('BENCH_TEMPLATE_PATH'), 'utf8'));
const postUrl = new URL('/api/v3/message/create', env('BENCH_SINK_URL'));
const authorization = `Bot ${env('BENCH_SINK_TOKEN')}`;
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** CPU µs used by this process so far. */
const cpuNow = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/**
 * Per-step CPU sums in µs. `body`: the message's JSON and its UTF-8 bytes; `post`: the in-job
 * part of the POST (the request built and handed over; its socket work and answer come later).
 */
const stats = { messages: 0, decode: 0, parse: 0, render: 0, card: 0, body: 0, post: 0 };
let lastBody: Buffer | undefined;

/** POSTs `body`; resolves with the status once the whole answer has arrived. */
function post(body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(postUrl, {
      method: 'POST',
      agent,
      headers: {
        Authorization: authorization,
        'Content-Type': 'application/json',
        'Content-Length': body.byteLength,
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      res.on('data', () => {});
      res.on('error', reject);
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.end(body);
  });
}

interface RefJob {
  readonly msg_id: string;
  readonly channel_id: string;
  readonly input: string;
  readonly input_encoding?: InputEncoding;
}

async function deliver(data: RefJob): Promise<void> {
  const t0 = cpuNow();
  const text = inputText(data.input, data.input_encoding);
  const t1 = cpuNow();
  const input: unknown = JSON.parse(text);
  const t2 = cpuNow();
  const rendered = compiled.render(input, {}, { now: Date.now() });
  const t3 = cpuNow();
  const content = JSON.stringify(JSON.parse(rendered));
  const t4 = cpuNow();
  const body = Buffer.from(
    JSON.stringify({ type: 10, target_id: data.channel_id, content, nonce: data.msg_id }),
  );
  const t5 = cpuNow();
  const answered = post(body);
  const t6 = cpuNow();
  stats.messages++;
  stats.decode += t1 - t0;
  stats.parse += t2 - t1;
  stats.render += t3 - t2;
  stats.card += t4 - t3;
  stats.body += t5 - t4;
  stats.post += t6 - t5;
  lastBody = body;
  const status = await answered;
  if (status < 200 || status >= 300) throw new Error(`the sink answered ${status}`);
}

/** CPU µs per POST of `n` POSTs of the last body, `concurrency` in flight at a time. */
async function postAlone(n: number, concurrency: number): Promise<number> {
  const body = lastBody;
  if (!body) throw new Error('no message delivered yet');
  let left = n;
  const lane = async () => {
    while (left-- > 0) await post(body);
  };
  const start = cpuNow();
  await Promise.all(Array.from({ length: concurrency }, lane));
  return (cpuNow() - start) / n;
}

// BullMQ's worker connection: retries forever, as BullMQ requires.
const connection = benchRedis('blocking');
await connection.connect();
const worker = new Worker(
  env('BENCH_QUEUE'),
  async (job) => {
    if (job.name === 'stats') return { ...stats };
    if (job.name === 'post-alone') {
      const { n, concurrency } = job.data as { n: number; concurrency: number };
      return postAlone(n, concurrency);
    }
    await deliver(job.data as RefJob);
    return undefined;
  },
  { connection, prefix: env('REDIS_PREFIX'), concurrency: Number(env('WORKER_CONCURRENCY')) },
);
await worker.waitUntilReady();
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void worker
    .close()
    .then(() => connection.quit())
    .finally(() => process.exit(0));
});
