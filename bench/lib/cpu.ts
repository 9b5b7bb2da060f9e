import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * CPU time (user + system) used so far by each of a set of processes, in ms, from
 * /proc/<pid>/stat (Linux). A benchmark reads it before and after a phase to say where the CPU
 * went per message: the worker, the store, Redis, the benchmark itself. Processes that cannot
 * be read (not Linux, gone) are left out rather than failing the run.
 */
export function cpuTimes(pids: Readonly<Record<string, number | undefined>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, pid] of Object.entries(pids)) {
    if (pid === undefined) continue;
    try {
      // Fields after the command name (which may hold spaces) start at its closing parenthesis.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
      out[name] = (ticks * 1000) / clockTicks();
    } catch {
      // not readable: skip
    }
  }
  return out;
}

/** The pid of the process listening on a TCP port of this machine (e.g. the store), if found. */
export function pidOnPort(port: number): number | undefined {
  try {
    const out = execFileSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8' });
    const match = /pid=(\d+)/.exec(out);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Per-message CPU of each process between two readings, in µs, by process name. */
export function cpuMicrosPerMessage(
  before: Record<string, number>,
  after: Record<string, number>,
  messages: number,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of Object.keys(after)) {
    if (before[k] === undefined) continue;
    out[k] = Math.round((((after[k] as number) - (before[k] as number)) * 1000) / messages);
  }
  return out;
}

/** Per-message CPU as "name N µs" pairs. */
export const formatCpu = (micros: Record<string, number>): string =>
  Object.entries(micros)
    .map(([k, us]) => `${k} ${us} µs`)
    .join(', ');

/** Per-message CPU of each process between two readings, as "name N µs" pairs. */
export function cpuPerMessage(
  before: Record<string, number>,
  after: Record<string, number>,
  messages: number,
): string {
  return formatCpu(cpuMicrosPerMessage(before, after, messages));
}

let ticks: number | undefined;

/** Kernel clock ticks per second (the unit of /proc/<pid>/stat times); 100 when unknown. */
function clockTicks(): number {
  if (ticks === undefined) {
    try {
      ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticks = 100;
    }
  }
  return ticks;
}
