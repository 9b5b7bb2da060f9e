// `npm run bench:utf8`: text/utf8.ts against what it replaces (Buffer#toString('utf8'),
// Buffer.from(text)), measured in the same run: decoding a body (the 50 KB GitLab push fixture,
// Chinese commit messages; the same body with its non-ASCII characters replaced), and encoding a
// relay body (a card of that push's commits as the relay posts it: the card JSON as a string
// inside JSON; and an ASCII-only one). Prints µs per call and the ratio.
import { readFileSync } from 'node:fs';
import { brotliCompressSync, constants } from 'node:zlib';
import { packText } from '../src/text/packed-text.js';
import { decodeUtf8, encodeUtf8 } from '../src/text/utf8.js';
import { callsPerSecond } from './lib/measure.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 1);
const measure = (fn: () => unknown): number => 1e6 / callsPerSecond(fn, SECONDS, 300, 50);
const fmt = (x: number) => x.toFixed(1);

const push = readFileSync(new URL('../test/fixtures/gitlab/push-large.json', import.meta.url));
/** `text` with every character outside ASCII replaced by '?'. */
const asciiOnly = (text: string): string => text.replace(/[^ -~\t\n\r]/g, '?');
const asciiPush = Buffer.from(asciiOnly(push.toString('utf8')), 'utf8');

interface Commit {
  readonly message: string;
  readonly author: { readonly name: string };
}
const relayBody = (commits: readonly Commit[]): string => {
  const card = [
    {
      type: 'card',
      modules: commits.flatMap((c) => [
        { type: 'section', text: { type: 'kmarkdown', content: `**${c.author.name}** ${c.message}` } },
        { type: 'divider' },
      ]),
    },
  ];
  return JSON.stringify({ type: 10, target_id: '1234567', content: JSON.stringify(card), nonce: 'msg-id' });
};
const commits = (JSON.parse(push.toString('utf8')) as { commits: Commit[] }).commits;
const cjkBody = relayBody(commits);
// Built from bytes, so V8 holds it one byte per character, as JSON.stringify makes ASCII text.
const asciiBody = Buffer.from(asciiOnly(cjkBody), 'utf8').toString('latin1');

const lines: string[] = [];
for (const [name, bytes] of [
  ['decode the GitLab push', push],
  ['decode it with ASCII only', asciiPush],
] as const) {
  const fast = measure(() => decodeUtf8(bytes));
  const plain = measure(() => bytes.toString('utf8'));
  lines.push(
    `${name} (${bytes.length} bytes): ${fmt(fast)} µs (decodeUtf8) against ${fmt(plain)} µs (Buffer#toString), ${(fast / plain).toFixed(2)}x`,
  );
}
for (const [name, text] of [
  ['encode a relay card body', cjkBody],
  ['encode one with ASCII only', asciiBody],
] as const) {
  const fast = measure(() => encodeUtf8(text));
  const plain = measure(() => Buffer.from(text, 'utf8'));
  lines.push(
    `${name} (${text.length} chars): ${fmt(fast)} µs (encodeUtf8) against ${fmt(plain)} µs (Buffer.from), ${(fast / plain).toFixed(2)}x`,
  );
}
// A delivery record's packed message (text/packed-text.ts): its brotli input encoded by
// encodeUtf8, against the string handed to zlib as it is (the same brotli settings).
const cardText = (JSON.parse(cjkBody) as { content: string }).content;
const brotliOfString = (text: string) =>
  brotliCompressSync(text, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 1,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: text.length,
    },
  }).toString('base64');
{
  const fast = measure(() => packText(cardText));
  const plain = measure(() => brotliOfString(cardText));
  lines.push(
    `pack a card for its record (${cardText.length} chars): ${fmt(fast)} µs (packText) against ${fmt(plain)} µs (brotli of the string), ${(fast / plain).toFixed(2)}x`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
