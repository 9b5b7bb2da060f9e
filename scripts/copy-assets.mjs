// Copies the non-TypeScript files the code loads at run time (Lua scripts, and the template
// gallery's data folder src/gallery) from src/ to dist/, since tsc only emits JavaScript.
import { cpSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
const dist = join(root, 'dist');
const ASSET = /\.lua$/;

for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !ASSET.test(entry.name)) continue;
  const from = join(entry.parentPath, entry.name);
  cpSync(from, join(dist, relative(src, from)));
}
// The gallery (src/domain/gallery reads it next to itself: dist/gallery when built).
cpSync(join(src, 'gallery'), join(dist, 'gallery'), { recursive: true });
