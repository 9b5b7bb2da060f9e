import type { TwigRegion } from './twig-scan.ts';

/*
 * The `data.` paths of the current test data, for completion: what keys the value at a path
 * has, and which loop and set variables stand for a path (`{% for commit in data.commits %}`
 * makes `commit.` complete with the keys of the commits).
 */

/** A key, an array index, or `*`: every element (or every value of an object). */
export type PathSegment = string | number;

export interface VariablePath {
  root: string;
  segments: PathSegment[];
}

/** A path as written in a template: a name, then `.key`, `.0`, `[0]` or `['key']` parts. */
export const PATH_SOURCE = String.raw`[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+|\[[0-9]+\]|\[(?:'[^']*'|"[^"]*")\])*`;
const PART = /\.([A-Za-z0-9_]+)|\[([0-9]+)\]|\[(?:'([^']*)'|"([^"]*)")\]/g;

/** `data.commits[0]['x y'].id` as its root and segments; null when it is not such a path. */
export function parsePath(written: string): VariablePath | null {
  const m = new RegExp(`^${PATH_SOURCE}$`).exec(written);
  if (!m) return null;
  const root = /^[A-Za-z_][A-Za-z0-9_]*/.exec(written)![0];
  const segments: PathSegment[] = [];
  for (const p of written.slice(root.length).matchAll(PART)) {
    if (p[1] !== undefined) segments.push(/^[0-9]+$/.test(p[1]) ? Number(p[1]) : p[1]);
    else if (p[2] !== undefined) segments.push(Number(p[2]));
    else segments.push(p[3] ?? p[4] ?? '');
  }
  return { root, segments };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** How many elements `*` looks at: enough to find optional keys, bounded for huge arrays. */
const ANY_ELEMENT_LIMIT = 50;

/** The values at `segments` below `value` (several where a `*` segment spreads over elements). */
export function valuesAt(value: unknown, segments: readonly PathSegment[]): unknown[] {
  let current: unknown[] = [value];
  for (const segment of segments) {
    const next: unknown[] = [];
    for (const v of current) {
      if (segment === '*') {
        if (Array.isArray(v)) next.push(...v.slice(0, ANY_ELEMENT_LIMIT));
        else if (isObject(v)) next.push(...Object.values(v).slice(0, ANY_ELEMENT_LIMIT));
      } else if (Array.isArray(v)) {
        const i = typeof segment === 'number' ? segment : /^[0-9]+$/.test(segment) ? Number(segment) : -1;
        if (i >= 0 && i < v.length) next.push(v[i]);
      } else if (isObject(v) && Object.hasOwn(v, String(segment))) {
        next.push(v[String(segment)]);
      }
    }
    current = next;
  }
  return current;
}

/** A value's kind as a completion shows it: `object`, `array[3]`, `string`... */
export function describeValue(v: unknown): string {
  if (Array.isArray(v)) return `array[${v.length}]`;
  if (v === null) return 'null';
  return typeof v;
}

/** A short look at a value (JSON, cut at `max` characters). */
export function previewValue(v: unknown, max = 120): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export interface ChildKey {
  key: string;
  /** The first value seen under the key. */
  value: unknown;
  /** An array index rather than an object key. */
  index: boolean;
}

/** How many indexes of an array are offered (`.0`, `.1`...). */
const INDEX_LIMIT = 10;

/** The keys below any of `values`, each once, in the order first seen. */
export function childKeys(values: readonly unknown[]): ChildKey[] {
  const out = new Map<string, ChildKey>();
  for (const v of values) {
    if (Array.isArray(v)) {
      v.slice(0, INDEX_LIMIT).forEach((item, i) => {
        if (!out.has(String(i))) out.set(String(i), { key: String(i), value: item, index: true });
      });
    } else if (isObject(v)) {
      for (const [key, value] of Object.entries(v))
        if (!out.has(key)) out.set(key, { key, value, index: false });
    }
  }
  return [...out.values()];
}

const FOR_TAG = new RegExp(
  String.raw`^\s*for\s+([A-Za-z_][A-Za-z0-9_]*)(?:\s*,\s*([A-Za-z_][A-Za-z0-9_]*))?\s+in\s+(${PATH_SOURCE})`,
);
const SET_TAG = new RegExp(String.raw`^\s*set\s+([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(${PATH_SOURCE})\s*$`);

/**
 * Variables that stand for a path, from the `{% for %}` and `{% set x = path %}` tags before
 * `pos`: `for commit in data.commits` makes `commit` the path `data.commits.*`; in
 * `for key, value in ...` the value is. Scopes (`endfor`) are not followed: a name keeps its
 * last meaning, which is what an author completing inside the loop wants.
 */
export function pathVariables(
  text: string,
  regions: readonly TwigRegion[],
  pos: number,
): Map<string, VariablePath> {
  const vars = new Map<string, VariablePath>();
  for (const r of regions) {
    if (r.to > pos) break;
    if (r.kind !== 'block') continue;
    const inner = text.slice(r.innerFrom, r.innerTo);
    const loop = FOR_TAG.exec(inner);
    if (loop) {
      const path = parsePath(loop[3]!);
      if (path) vars.set(loop[2] ?? loop[1]!, { root: path.root, segments: [...path.segments, '*'] });
      continue;
    }
    const set = SET_TAG.exec(inner);
    if (set) {
      const path = parsePath(set[2]!);
      if (path) vars.set(set[1]!, path);
    }
  }
  return vars;
}

/** The values a path names: `data` is the test data, other roots go through `vars` (bounded). */
export function resolvePath(
  path: VariablePath,
  data: unknown,
  vars: ReadonlyMap<string, VariablePath>,
  depth = 0,
): unknown[] {
  if (path.root === 'data') return valuesAt(data, path.segments);
  const v = vars.get(path.root);
  if (!v || depth > 16) return [];
  return resolvePath({ root: v.root, segments: [...v.segments, ...path.segments] }, data, vars, depth + 1);
}
