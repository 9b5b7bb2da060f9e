// `npm run bench:render`: renders per second of the GitLab push card (20 commits), compiled once,
// with Herald, PHP Twig 3.5 (when `php` is installed) and twing, measured in the same run.
// Not a test: it prints numbers and the ratios Herald/PHP and Herald/twing.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createSynchronousArrayLoader, createSynchronousEnvironment, createSynchronousFilter } from 'twing';
import { compileTemplate } from '../src/render/index.js';
import { callsPerSecond } from './lib/measure.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const path = (rel: string): string => fileURLToPath(new URL(rel, import.meta.url));
const templatePath = path('../test/fixtures/gitlab/push-card.json.twig');
const dataPath = path('../test/fixtures/gitlab/push-event.json');
const source = readFileSync(templatePath, 'utf8');
const data: unknown = JSON.parse(readFileSync(dataPath, 'utf8'));

function herald(): { rate: number; output: string } {
  const tpl = compileTemplate(source);
  const output = tpl.render(data, {});
  return { rate: callsPerSecond(() => tpl.render(data, {}), SECONDS), output };
}

function php(): { rate: number; output: string } | undefined {
  try {
    const script = path('../scripts/php/bench-render.php');
    const out = execFileSync('php', [script, templatePath, dataPath, String(SECONDS)], {
      encoding: 'utf8',
      timeout: (SECONDS + 60) * 1000,
    });
    const result = JSON.parse(out) as { renders_per_sec: number; output: string };
    return { rate: result.renders_per_sec, output: result.output };
  } catch (err) {
    console.log(`PHP Twig: not measured (${(err as Error).message.split('\n')[0]})`);
    return undefined;
  }
}

function twing(): { rate: number; output: string } {
  const env = createSynchronousEnvironment(createSynchronousArrayLoader({ template: source }), {
    autoEscapingStrategy: null,
  } as never);
  env.addFilter(
    createSynchronousFilter(
      'json_escape',
      (_ctx, value: unknown) =>
        JSON.stringify(value === null || value === false || value === undefined ? '' : String(value)).slice(
          1,
          -1,
        ),
      [],
    ),
  );
  const platform = { image: (url: unknown) => url };
  const context = { data, PLATFORM: platform };
  const output = env.render('template', context);
  return { rate: callsPerSecond(() => env.render('template', context), SECONDS), output };
}

const fmt = (n: number): string => n.toFixed(0).padStart(8);
// Two alternating rounds, best of each: the machine may be shared, and load shifts between runs.
const best = <T extends { rate: number }>(a: T | undefined, b: T | undefined): T | undefined =>
  a && b ? (b.rate > a.rate ? b : a) : (a ?? b);
const h1 = herald();
const p1 = php();
const h = best(h1, herald())!;
const p = best(p1, p1 ? php() : undefined);
console.log(`Herald:   ${fmt(h.rate)} renders/s`);
if (p) {
  console.log(
    `PHP Twig: ${fmt(p.rate)} renders/s (output ${p.output === h.output ? 'byte-identical' : 'DIFFERS'})`,
  );
}
let t: { rate: number; output: string } | undefined;
try {
  t = twing();
  console.log(`twing:    ${fmt(t.rate)} renders/s`);
} catch (err) {
  console.log(`twing: not measured (${(err as Error).message.split('\n')[0]})`);
}
if (p) console.log(`Herald/PHP:   ${(h.rate / p.rate).toFixed(2)}x (goal >= 1.0x)`);
if (t) console.log(`Herald/twing: ${(h.rate / t.rate).toFixed(2)}x (goal >= 10x)`);
