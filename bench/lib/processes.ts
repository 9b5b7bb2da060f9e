import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const children = new Set<() => void>();
// A benchmark that throws must not leave its workers running.
process.on('exit', () => {
  for (const kill of children) kill();
});

/**
 * The node flags the Procfile gives a process type ("worker: node --flag dist/bin/worker.js"
 * gives ["--flag"]), so that a benchmark runs the process as production does.
 */
export function procfileNodeFlags(type: string): string[] {
  const line = readFileSync(new URL('Procfile', `file://${root}`), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${type}:`));
  if (line === undefined) throw new Error(`the Procfile has no ${type} process`);
  const words = line
    .slice(type.length + 1)
    .trim()
    .split(/\s+/);
  return words.slice(1, -1);
}

export interface BenchProcess {
  readonly pid: number;
  /** Everything it wrote so far (stdout and stderr). */
  output(): string;
  /** SIGTERM, then waits for the exit (a CPU profile is written on exit). */
  stop(): Promise<void>;
  /** SIGKILL (no clean-up of any kind in the process), then waits for the exit. */
  kill(): Promise<void>;
}

/**
 * Starts `node --import tsx <entry>` from the project root with `env` added, and resolves once
 * its output contains `ready`. Run through node rather than the tsx CLI so that signals reach
 * the real process.
 */
export async function spawnProcess(
  entry: string,
  env: Readonly<Record<string, string>>,
  ready: string,
  nodeArgs: readonly string[] = [],
): Promise<BenchProcess> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', entry], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const kill = () => child.kill('SIGKILL');
  children.add(kill);
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const check = setInterval(() => {
      if (out.includes(ready)) {
        clearInterval(check);
        resolve();
      } else if (child.exitCode !== null) {
        clearInterval(check);
        reject(new Error(`${entry} exited before it was ready:\n${out}`));
      }
    }, 20);
  });
  return {
    pid: child.pid as number,
    output: () => out,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      children.delete(kill);
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
      children.delete(kill);
    },
  };
}
