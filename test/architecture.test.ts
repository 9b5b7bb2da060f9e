import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * The import graph of src/, type-only imports included (biome's noImportCycles does not see
 * those): no cycle, no import up the layers, and each process's entry point reaches only what it
 * uses.
 */

/** Each area of src/ and its layer: an area imports only from layers below its own. */
const LAYER: Record<string, number> = {
  bin: 7,
  api: 6,
  workers: 6,
  resources: 5,
  core: 4.5,
  domain: 4,
  queue: 3,
  locks: 3,
  http: 3,
  redis: 2,
  ratelimit: 2,
  render: 2,
  store: 2,
  metrics: 2,
  log: 1,
  errors: 1,
  text: 1,
  config: 0,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s+'(\.{1,2}\/[^']+)'/g;

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles('src')) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((m) =>
      join(dirname(file), (m[1] ?? '').replace(/\.js$/, '.ts')),
    );
    graph.set(file, targets);
  }
  return graph;
}

const areaOf = (file: string): string => {
  const parts = relative('src', file).split(sep);
  return parts.length === 1 ? (parts[0] ?? '').replace(/\.ts$/, '') : (parts[0] ?? '');
};

function reachable(graph: Map<string, string[]>, from: string): Set<string> {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length > 0) {
    const f = stack.pop() as string;
    if (seen.has(f)) continue;
    seen.add(f);
    stack.push(...(graph.get(f) ?? []));
  }
  return seen;
}

describe('the import graph of src/', () => {
  const graph = importGraph();

  it('reads every import to a file that exists', () => {
    expect(graph.size).toBeGreaterThan(100);
    const missing = [...graph.values()].flat().filter((t) => !graph.has(t));
    expect(missing).toEqual([]);
  });

  it('has no cycle, type-only imports included', () => {
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (f: string, path: string[]) => {
      if (state.get(f) === 'done') return;
      if (state.get(f) === 'open') {
        cycles.push([...path.slice(path.indexOf(f)), f].join(' -> '));
        return;
      }
      state.set(f, 'open');
      for (const t of graph.get(f) ?? []) visit(t, [...path, f]);
      state.set(f, 'done');
    };
    for (const f of graph.keys()) visit(f, []);
    expect(cycles).toEqual([]);
  });

  it('imports only down the layers, and every area has a layer', () => {
    const wrong: string[] = [];
    for (const [file, targets] of graph) {
      const from = areaOf(file);
      expect(LAYER[from], `${from} has no layer`).toBeDefined();
      for (const t of targets) {
        const to = areaOf(t);
        if (to !== from && (LAYER[to] ?? 99) >= (LAYER[from] ?? 0)) wrong.push(`${file} -> ${t}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('keeps the worker process off the web side: no API, no ingest runtime', () => {
    const worker = reachable(graph, join('src', 'bin', 'worker.ts'));
    expect(worker.has(join('src', 'workers', 'index.ts'))).toBe(true);
    const webOnly = [...worker].filter(
      (f) =>
        areaOf(f) === 'api' || f === join('src', 'domain', 'pipes', 'runtime.ts') || f.endsWith('ingest.ts'),
    );
    expect(webOnly).toEqual([]);
  });

  it('names Redis keys in one module: no other file builds a prefixed key', () => {
    const builders = [...graph.keys()].filter(
      (f) =>
        f !== join('src', 'redis', 'keys.ts') &&
        /`\$\{[\w.]*(?:redisPrefix|prefix)\}:/.test(readFileSync(f, 'utf8')),
    );
    expect(builders).toEqual([]);
  });

  it('keeps the web process off the worker side', () => {
    const web = reachable(graph, join('src', 'bin', 'web.ts'));
    expect(web.has(join('src', 'api', 'app.ts'))).toBe(true);
    expect([...web].filter((f) => areaOf(f) === 'workers')).toEqual([]);
  });
});
