// `npm run bench:render`: renders per second of four templates, each compiled once, with Herald
// and PHP Twig 3.5 (when `php` is installed) measured in the same run, interleaved (Herald, PHP,
// Herald, PHP... BENCH_ROUNDS rounds of BENCH_SECONDS each), medians compared. The machine may be
// shared: only ratios from one interleaved run mean much. Not a test: it prints numbers.
// BENCH_ONLY=<name,...> restricts the run to some templates.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileTemplate } from '../src/render/index.js';
import { callsPerSecond } from './lib/measure.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const GOAL = 2;
const path = (rel: string): string => fileURLToPath(new URL(rel, import.meta.url));

interface Case {
  name: string;
  templatePath: string;
  dataPath: string;
}

const CASES: Case[] = [
  {
    name: 'gitlab-push',
    templatePath: path('../test/fixtures/gitlab/push-card.json.twig'),
    dataPath: path('../test/fixtures/gitlab/push-event.json'),
  },
  {
    // the 52 KB push: 20 commits with long messages
    name: 'gitlab-push-52k',
    templatePath: path('../test/fixtures/gitlab/push-card.json.twig'),
    dataPath: path('../test/fixtures/gitlab/push-large.json'),
  },
  {
    name: 'alertmanager-10',
    templatePath: path('../src/gallery/templates/alertmanager.twig'),
    dataPath: path('./fixtures/alertmanager-10.json'),
  },
  {
    name: 'kmd-digest',
    templatePath: path('./fixtures/digest.kmd.twig'),
    dataPath: path('./fixtures/digest.json'),
  },
];

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function heraldCompileMs(source: string): number {
  for (let i = 0; i < 20; i++) compileTemplate(source); // warm-up (JIT)
  const times: number[] = [];
  for (let i = 0; i < 21; i++) {
    const t0 = process.hrtime.bigint();
    compileTemplate(source);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(times);
}

interface PhpRun {
  rate: number;
  compileMs: number;
  output: string;
}

function php(c: Case): PhpRun | undefined {
  try {
    const script = path('../scripts/php/bench-render.php');
    const out = execFileSync('php', [script, c.templatePath, c.dataPath, String(SECONDS)], {
      encoding: 'utf8',
      timeout: (SECONDS + 60) * 1000,
    });
    const r = JSON.parse(out) as { renders_per_sec: number; compile_ms: number; output: string };
    return { rate: r.renders_per_sec, compileMs: r.compile_ms, output: r.output };
  } catch (err) {
    console.log(`PHP Twig: not measured (${(err as Error).message.split('\n')[0]})`);
    return undefined;
  }
}

const only = process.env.BENCH_ONLY?.split(',');
const fmt = (n: number, w = 8): string => n.toFixed(0).padStart(w);
const ratios: number[] = [];
for (const c of CASES) {
  if (only && !only.includes(c.name)) continue;
  const source = readFileSync(c.templatePath, 'utf8');
  const data: unknown = JSON.parse(readFileSync(c.dataPath, 'utf8'));
  const tpl = compileTemplate(source);
  const output = tpl.render(data, {});
  const heraldRates: number[] = [];
  const phpRuns: PhpRun[] = [];
  let phpMissing = false;
  for (let r = 0; r < ROUNDS; r++) {
    heraldRates.push(callsPerSecond(() => tpl.render(data, {}), SECONDS));
    if (phpMissing) continue;
    const p = php(c);
    if (p) phpRuns.push(p);
    else phpMissing = true;
  }
  const h = median(heraldRates);
  const hc = heraldCompileMs(source);
  console.log(`${c.name} (${(Buffer.byteLength(JSON.stringify(data)) / 1024).toFixed(1)} KB of data)`);
  console.log(
    `  Herald:   ${fmt(h)} renders/s (${(1e6 / h).toFixed(0)} us; rounds ${heraldRates.map((x) => fmt(x, 0)).join(' ')}); compile ${hc.toFixed(2)} ms`,
  );
  if (phpRuns.length > 0) {
    const p = median(phpRuns.map((x) => x.rate));
    const pc = median(phpRuns.map((x) => x.compileMs));
    const same = phpRuns[0]!.output === output;
    console.log(
      `  PHP Twig: ${fmt(p)} renders/s (${(1e6 / p).toFixed(0)} us; rounds ${phpRuns.map((x) => fmt(x.rate, 0)).join(' ')}); compile ${pc.toFixed(2)} ms; output ${same ? 'byte-identical' : 'DIFFERS'}`,
    );
    ratios.push(h / p);
    console.log(
      `  Herald/PHP: ${(h / p).toFixed(2)}x (goal >= ${GOAL.toFixed(1)}x); compile ${(pc / hc).toFixed(1)}x faster`,
    );
  }
}
if (ratios.length > 0) console.log(`lowest Herald/PHP: ${Math.min(...ratios).toFixed(2)}x`);
