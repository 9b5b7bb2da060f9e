// `npm run bench:signatures`: what checking one signature costs the door (domain/pipes/
// signatures/verify.ts, node:crypto with the key as a KeyObject) against the packages the
// schemes publish, `standardwebhooks` (Webhook#verify) and `@octokit/webhooks-methods` (verify),
// on the small KMarkdown body of bench:ingest and the 52 KB GitLab push fixture.
// Not a test: it prints µs per check and the ratios (why the door uses node:crypto).
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { SecretBox } from '../src/domain/pipes/signatures/secret-box.js';
import { generateSecret, storeSecret } from '../src/domain/pipes/signatures/secrets.js';
import {
  openSignatureCheck,
  type SignatureCheck,
  verifySignature,
} from '../src/domain/pipes/signatures/verify.js';
import { callsPerSecond } from './lib/measure.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 1);
const measure = (fn: () => unknown): number => 1e6 / callsPerSecond(fn, SECONDS, 300, 50);

async function measureAsync(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 300; i++) await fn();
  let calls = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  do {
    for (let i = 0; i < 50; i++) await fn();
    calls += 50;
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  } while (elapsed < SECONDS);
  return (elapsed * 1e6) / calls;
}

const box = new SecretBox(randomBytes(32));
const checkFor = (scheme: 'github' | 'standard-webhooks', secret: string): SignatureCheck =>
  openSignatureCheck(
    {
      scheme,
      header: null,
      encoding: null,
      prefix: null,
      secrets: [storeSecret(box, '1', scheme, secret, 1)],
    },
    '1',
    box,
  ) as SignatureCheck;

const bodies = {
  small: JSON.stringify({ content: 'Pipeline **#4711** passed on `main` in 3m 12s' }),
  'gitlab push 52 KB': readFileSync(
    new URL('../test/fixtures/gitlab/push-large.json', import.meta.url),
    'utf8',
  ),
};

for (const [name, text] of Object.entries(bodies)) {
  const bytes = Buffer.from(text);
  const now = Date.now();
  const ts = Math.floor(now / 1000);

  const whsec = generateSecret('standard-webhooks');
  const wh = new Webhook(whsec);
  const swHeaders = {
    'webhook-id': 'msg_bench',
    'webhook-timestamp': String(ts),
    'webhook-signature': wh.sign('msg_bench', new Date(ts * 1000), text),
  };
  const sw = checkFor('standard-webhooks', whsec);
  const swOurs = measure(() => verifySignature(sw, { headers: swHeaders, wire: null, decoded: bytes, now }));
  const swTheirs = measure(() => wh.verify(text, swHeaders, { jsonParse: false }));

  const ghSecret = generateSecret('github');
  const ghSignature = `sha256=${createHmac('sha256', ghSecret).update(bytes).digest('hex')}`;
  const gh = checkFor('github', ghSecret);
  const ghHeaders = { 'x-hub-signature-256': ghSignature };
  const ghOurs = measure(() => verifySignature(gh, { headers: ghHeaders, wire: null, decoded: bytes, now }));
  // The package takes the body as a string and answers a promise.
  const ghTheirs = await measureAsync(() => octokitVerify(ghSecret, text, ghSignature));

  process.stdout.write(
    `${name} (${bytes.length} bytes):\n` +
      `  standard-webhooks: door ${swOurs.toFixed(1)} µs, standardwebhooks ${swTheirs.toFixed(1)} µs (${(swTheirs / swOurs).toFixed(1)}x)\n` +
      `  github:            door ${ghOurs.toFixed(1)} µs, @octokit/webhooks-methods ${ghTheirs.toFixed(1)} µs (${(ghTheirs / ghOurs).toFixed(1)}x)\n`,
  );
}
