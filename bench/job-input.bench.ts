// `npm run bench:job-input`: what writing a template pipe's input into its job costs the ingest,
// and reading it back costs a render thread, deflated (queue/job-input.ts) against base64 only,
// measured in the same run, for the GitLab push fixture (50 KB) and a 1.3 KB Grafana alert; and
// of the read, decoding the bytes as text (text/utf8.ts) against Buffer#toString.
// Not a test: it prints µs per body, sizes and the ratios deflated/base64, and level 6 beside level 1.
import { readFileSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { bodyInput, inputText } from '../src/queue/job-input.js';
import { decodeUtf8 } from '../src/text/utf8.js';
import { callsPerSecond } from './lib/measure.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 1);

/** µs per call of `fn`. */
const measure = (fn: () => unknown, seconds: number): number => 1e6 / callsPerSecond(fn, seconds, 300, 50);

const push = readFileSync(new URL('../test/fixtures/gitlab/push-large.json', import.meta.url));
const alert = Buffer.from(
  JSON.stringify({
    receiver: 'herald',
    status: 'firing',
    alerts: Array.from({ length: 4 }, (_, i) => ({
      status: 'firing',
      labels: { alertname: 'HighLatency', instance: `web-${i}:9100`, severity: 'warning' },
      annotations: { summary: `p99 above 250 ms on web-${i}`, description: '请检查数据库连接池' },
      startsAt: '2026-11-24T08:00:00Z',
      generatorURL: `https://grafana.example.com/alerting/grafana/abc${i}/view`,
    })),
  }),
);

const fmt = (x: number) => x.toFixed(1);
const lines: string[] = [];
for (const [name, bytes] of [
  ['GitLab push', push],
  ['Grafana alert', alert],
] as const) {
  const packed = bodyInput(bytes);
  const plain = { input: bytes.toString('base64'), input_encoding: 'base64' as const };
  const write = {
    deflated: measure(() => bodyInput(bytes), SECONDS),
    plain: measure(() => bytes.toString('base64'), SECONDS),
  };
  const read = {
    deflated: measure(() => inputText(packed.input, packed.input_encoding), SECONDS),
    plain: measure(() => inputText(plain.input, plain.input_encoding), SECONDS),
  };
  lines.push(
    `${name} (${bytes.length} bytes): in the job ${packed.input.length} chars (${packed.input_encoding}) against ${plain.input.length} (base64), ${fmt((100 * packed.input.length) / plain.input.length)}%`,
    `  write (ingest):       ${fmt(write.deflated)} µs against ${fmt(write.plain)} µs, ${(write.deflated / write.plain).toFixed(2)}x`,
    `  read (render thread): ${fmt(read.deflated)} µs against ${fmt(read.plain)} µs, ${(read.deflated / read.plain).toFixed(2)}x`,
  );
  // Part of the read: the inflated bytes to text (text/utf8.ts) against toString.
  const decode = {
    fast: measure(() => decodeUtf8(bytes), SECONDS),
    plain: measure(() => bytes.toString('utf8'), SECONDS),
  };
  lines.push(
    `  of which bytes to text: ${fmt(decode.fast)} µs (decodeUtf8) against ${fmt(decode.plain)} µs (Buffer#toString), ${(decode.fast / decode.plain).toFixed(2)}x`,
  );
  // Why level 1 (job-input.ts): what zlib's default level would give instead.
  const level6 = deflateRawSync(bytes, { level: 6 }).toString('base64');
  const write6 = measure(() => deflateRawSync(bytes, { level: 6 }).toString('base64'), SECONDS);
  lines.push(
    `  at zlib level 6 instead of 1: ${level6.length} chars, written in ${fmt(write6)} µs (${(level6.length / packed.input.length).toFixed(2)}x the size, ${(write6 / write.deflated).toFixed(2)}x the time)`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
