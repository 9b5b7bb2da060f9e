// Writes the gallery's Twig conformance cases (test/render/conformance/cases/gallery.json) from
// src/gallery: every template over every sample and its `variants` (a sample with some values
// changed), plus per template a payload without its optional fields (manifest `optional`), one
// with long sender text and long lists (`long`, `repeat`) and an empty object. `npm run conformance:regen` then renders them with PHP Twig.
//
//   npm run gallery:cases && npm run conformance:regen
//
// test/render/gallery.test.ts fails when the committed file differs from what this builds.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { GALLERY_DIR, type GalleryManifestEntry, readGalleryManifest } from '../src/domain/gallery/index.js';

export interface GalleryCase {
  readonly name: string;
  readonly template: string;
  readonly data: unknown;
}

export const GALLERY_CASES_FILE = new URL('../test/render/conformance/cases/gallery.json', import.meta.url);

/** Sender text that is long and holds everything that breaks JSON, YAML or KMarkdown when unescaped. */
const LONG_SEED =
  'Long "quoted" text with a \\ backslash, a \'single\' quote, *stars*, ~~strike~~, `ticks`, ' +
  '[brackets](https://example.com/x), (met)all(met), > a quote, 中文字符, emoji 🚀 and 👩‍💻, ' +
  'a tab\tand a line break\n';
const LONG_LENGTH = 1200;
/** Items in a list made long: more than any template shows. */
const REPEAT_TO = 25;
/** List items whose text is made long (the rest keep theirs: the file stays small). */
const LONG_ITEMS = 3;

export const LONG_TEXT = (() => {
  const points = [...LONG_SEED.repeat(Math.ceil(LONG_LENGTH / [...LONG_SEED].length))];
  return points.slice(0, LONG_LENGTH).join('');
})();

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
const isObject = (v: Json | undefined): v is { [key: string]: Json } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Calls `fn(parent, key)` for each place `path` (dot-separated, `*` = every list item) names;
 * `takeItem` may skip list items.
 */
function visit(
  root: Json,
  path: string,
  fn: (parent: { [key: string]: Json } | Json[], key: string) => void,
  takeItem: (list: Json[]) => boolean = () => true,
): void {
  const parts = path.split('.');
  const walk = (node: Json | undefined, i: number): void => {
    const part = parts[i]!;
    const last = i === parts.length - 1;
    if (part === '*') {
      if (!Array.isArray(node)) return;
      node.forEach((item, k) => {
        if (!takeItem(node)) return;
        if (last) fn(node, String(k));
        else walk(item, i + 1);
      });
      return;
    }
    if (!isObject(node)) return;
    if (last) fn(node, part);
    else walk(node[part], i + 1);
  };
  walk(root, 0);
}

const clone = (v: Json): Json => JSON.parse(JSON.stringify(v)) as Json;

/** The payload without the fields a sender may leave out. */
export function withoutOptional(data: Json, entry: GalleryManifestEntry): Json {
  const out = clone(data);
  for (const path of entry.optional) {
    visit(out, path, (parent, key) => {
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
    });
  }
  return out;
}

/** The payload with long lists (cycled to REPEAT_TO items) and long text where the sender writes text. */
export function withLongText(data: Json, entry: GalleryManifestEntry): Json {
  const out = clone(data);
  for (const path of entry.repeat ?? []) {
    visit(out, path, (parent, key) => {
      const list = (parent as { [key: string]: Json })[key];
      if (!Array.isArray(list) || list.length === 0) return;
      const items = list.slice();
      for (let i = 0; list.length < REPEAT_TO; i++) list.push(clone(items[i % items.length]!));
    });
  }
  for (const path of entry.long) {
    const listItems = new Map<Json[], number>();
    visit(
      out,
      path,
      (parent, key) => {
        if (Array.isArray(parent)) parent[Number(key)] = LONG_TEXT;
        else parent[key] = LONG_TEXT;
      },
      (list) => {
        const seen = (listItems.get(list) ?? 0) + 1;
        listItems.set(list, seen);
        return seen <= LONG_ITEMS;
      },
    );
  }
  return out;
}

/** The payload with `paths` set to values (a path's parent must exist). */
export function withValues(data: Json, paths: Readonly<Record<string, unknown>>): Json {
  const out = clone(data);
  for (const [path, value] of Object.entries(paths)) {
    let found = false;
    visit(out, path, (parent, key) => {
      found = true;
      if (Array.isArray(parent)) parent[Number(key)] = value as Json;
      else parent[key] = value as Json;
    });
    if (!found) throw new Error(`variant path ${path} names nothing`);
  }
  return out;
}

export async function buildGalleryCases(dir: URL = GALLERY_DIR): Promise<GalleryCase[]> {
  const cases: GalleryCase[] = [];
  for (const entry of await readGalleryManifest(dir)) {
    const template = readFileSync(new URL(`templates/${entry.id}.twig`, dir), 'utf8');
    const samples = entry.samples.map((s) => ({
      id: s.id,
      data: JSON.parse(readFileSync(new URL(`samples/${entry.id}/${s.id}.json`, dir), 'utf8')) as Json,
    }));
    for (const s of samples) cases.push({ name: `gallery-${entry.id}-${s.id}`, template, data: s.data });
    for (const v of entry.variants ?? []) {
      const base = samples.find((s) => s.id === v.sample)!.data;
      cases.push({ name: `gallery-${entry.id}-variant-${v.id}`, template, data: withValues(base, v.set) });
    }
    const first = samples[0]!.data;
    cases.push({
      name: `gallery-${entry.id}-missing-optional`,
      template,
      data: withoutOptional(first, entry),
    });
    cases.push({ name: `gallery-${entry.id}-long-text`, template, data: withLongText(first, entry) });
    cases.push({ name: `gallery-${entry.id}-empty-object`, template, data: {} });
  }
  return cases;
}

/** The file's text: one case per line, so a change shows as the cases it touches. */
export function casesFileText(cases: readonly GalleryCase[]): string {
  return `[\n${cases.map((c) => JSON.stringify(c)).join(',\n')}\n]\n`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const cases = await buildGalleryCases();
  writeFileSync(GALLERY_CASES_FILE, casesFileText(cases));
  console.log(
    `${cases.length} cases -> ${fileURLToPath(GALLERY_CASES_FILE)}; now run npm run conformance:regen`,
  );
}
