import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { builtEntry } from './built-tree.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface Proc {
  child: ChildProcess;
  out: string[];
  err: string[];
  exited: Promise<number | null>;
}

/**
 * Starts `src/bin/<entry>.ts`, compiled (helpers/built-tree.ts), as `node <entry>.js`, so that
 * signals reach the process itself.
 */
export function startEntry(entry: string, env: Record<string, string>): Proc {
  const built = builtEntry(entry);
  const child = spawn(process.execPath, built.args, {
    cwd: root,
    env: { ...process.env, ...built.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: string[] = [];
  const err: string[] = [];
  child.stdout?.on('data', (d: Buffer) => out.push(d.toString()));
  child.stderr?.on('data', (d: Buffer) => err.push(d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out, err, exited };
}

/** Waits until the process prints `text`; fails at once if it exits first. */
export async function waitForOutput(proc: Proc, text: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!proc.out.join('').includes(text)) {
    if (Date.now() > deadline || proc.child.exitCode !== null)
      throw new Error(`no "${text}" in output: ${proc.out.join('')} ${proc.err.join('')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A port the kernel has just handed out as free (for processes that need a fixed PORT). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
