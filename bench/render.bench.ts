// `npm run bench:render`: renders per CPU second and per wall second of four templates, each
// compiled once, with Herald and PHP Twig 3.5 (when `php` is installed) measured in the same run,
// interleaved (Herald, PHP, Herald, PHP... BENCH_ROUNDS rounds of BENCH_SECONDS each), medians
// compared. The machine may be shared: only ratios from one interleaved run mean much. Not a
// test: it prints numbers. BENCH_ONLY=<name,...> restricts the run to some templates.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileTemplate } from '../src/render/index.js';

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

/** CPU seconds of this process (user + system). */
const cpuSeconds = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/**
 * Calls per CPU second of this process and per wall second, over the same calls. PHP's side counts
 * the same way. On a shared machine the wall clock also counts the time other processes hold the
 * cores; CPU time much less so, though it includes V8's own helper threads (GC, compiler).
 */
function callsPerSecond(fn: () => unknown, seconds: number): Rates {
  for (let i = 0; i < 500; i++) fn(); // warm-up (JIT)
  let calls = 0;
  const start = cpuSeconds();
  const wallStart = performance.now();
  let elapsed = 0;
  do {
    for (let i = 0; i < 100; i++) fn();
    calls += 100;
    elapsed = cpuSeconds() - start;
  } while (elapsed < seconds);
  return { cpu: calls / elapsed, wall: calls / ((performance.now() - wallStart) / 1000) };
}

interface Rates {
  cpu: number;
  wall: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

// The render clock is a wall clock: on a loaded machine a descheduled render can pass 250 ms, which
// would end the bench; the step budget still applies.
const LIMITS = { maxRenderMs: 60_000 };

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

interface PhpRun extends Rates {
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
    const r = JSON.parse(out) as {
      renders_per_sec: number;
      renders_per_wall_sec: number;
      compile_ms: number;
      output: string;
    };
    return {
      cpu: r.renders_per_sec,
      wall: r.renders_per_wall_sec,
      compileMs: r.compile_ms,
      output: r.output,
    };
  } catch (err) {
    console.log(`PHP Twig: not measured (${(err as Error).message.split('\n')[0]})`);
    return undefined;
  }
}

const only = process.env.BENCH_ONLY?.split(',');
const fmt = (n: number, w = 8): string => n.toFixed(0).padStart(w);
const lowest = { cpu: Infinity, wall: Infinity };
for (const c of CASES) {
  if (only && !only.includes(c.name)) continue;
  const source = readFileSync(c.templatePath, 'utf8');
  const data: unknown = JSON.parse(readFileSync(c.dataPath, 'utf8'));
  const tpl = compileTemplate(source, { limits: LIMITS });
  const output = tpl.render(data, {});
  const heraldRuns: Rates[] = [];
  const phpRuns: PhpRun[] = [];
  let phpMissing = false;
  for (let r = 0; r < ROUNDS; r++) {
    heraldRuns.push(callsPerSecond(() => tpl.render(data, {}), SECONDS));
    if (phpMissing) continue;
    const p = php(c);
    if (p) phpRuns.push(p);
    else phpMissing = true;
  }
  const hc = heraldCompileMs(source);
  console.log(`${c.name} (${(Buffer.byteLength(JSON.stringify(data)) / 1024).toFixed(1)} KB of data)`);
  const line = (who: string, runs: Rates[], kind: keyof Rates): number => {
    const m = median(runs.map((x) => x[kind]));
    const unit = kind === 'cpu' ? 'renders/cpu-s' : 'renders/s    ';
    console.log(
      `  ${who} ${fmt(m)} ${unit} (${(1e6 / m).toFixed(0).padStart(4)} us; rounds ${runs.map((x) => fmt(x[kind], 0)).join(' ')})`,
    );
    return m;
  };
  const hCpu = line('Herald:  ', heraldRuns, 'cpu');
  const hWall = line('Herald:  ', heraldRuns, 'wall');
  console.log(`  Herald compile ${hc.toFixed(2)} ms`);
  if (phpRuns.length > 0) {
    const pCpu = line('PHP Twig:', phpRuns, 'cpu');
    const pWall = line('PHP Twig:', phpRuns, 'wall');
    const pc = median(phpRuns.map((x) => x.compileMs));
    const same = phpRuns[0]!.output === output;
    console.log(
      `  PHP compile ${pc.toFixed(2)} ms (${(pc / hc).toFixed(1)}x Herald's); output ${same ? 'byte-identical' : 'DIFFERS'}`,
    );
    lowest.cpu = Math.min(lowest.cpu, hCpu / pCpu);
    lowest.wall = Math.min(lowest.wall, hWall / pWall);
    console.log(
      `  Herald/PHP: ${(hCpu / pCpu).toFixed(2)}x by CPU time, ${(hWall / pWall).toFixed(2)}x by wall time (goal >= ${GOAL.toFixed(1)}x)`,
    );
  }
}
if (Number.isFinite(lowest.cpu)) {
  console.log(
    `lowest Herald/PHP: ${lowest.cpu.toFixed(2)}x by CPU time, ${lowest.wall.toFixed(2)}x by wall time`,
  );
}
