import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

/*
 * Spawned web and worker processes run src/ compiled to plain JavaScript, not through tsx's
 * loader: tsx transforms and resolves every module as each process (and each of its render
 * threads) starts, which made a worker take about 2 s longer to start on the 2-core machine.
 * The tree is built once per state of src/ (its files' hash names the folder), by esbuild in
 * well under a second, and laid out as `npm run build` lays out dist/.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const src = join(root, 'src');
const cacheDir = join(root, 'node_modules', '.cache', 'herald-test-build');

function sourceFiles(): string[] {
  return readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** The hash of every file under src/ (names and contents). */
function sourceHash(files: readonly string[]): string {
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(relative(src, file));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/** How old a build of other sources must be before it is removed. */
const STALE_BUILD_MS = 60 * 60 * 1000;

let built: string | null = null;

/**
 * The folder holding src/ compiled for the current sources, built if missing. Safe to call from
 * several processes at once: each builds into its own folder and renames it into place.
 */
export function builtTree(): string {
  if (built !== null) return built;
  const files = sourceFiles();
  const dir = join(cacheDir, sourceHash(files));
  if (!existsSync(join(dir, 'bin'))) {
    const tmp = `${dir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    buildSync({
      entryPoints: files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
      outdir: tmp,
      outbase: src,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: 'linked',
      logLevel: 'error',
    });
    // What the code reads beside itself at run time (as scripts/copy-assets.mjs copies to dist/).
    for (const file of files.filter((f) => f.endsWith('.lua'))) {
      const to = join(tmp, relative(src, file));
      mkdirSync(join(to, '..'), { recursive: true });
      cpSync(file, to);
    }
    cpSync(join(src, 'gallery'), join(tmp, 'gallery'), { recursive: true });
    try {
      renameSync(tmp, dir);
    } catch {
      // Another process put the same build in place first.
      rmSync(tmp, { recursive: true, force: true });
    }
    // Builds of earlier sources are of no further use once no process can still be on them.
    for (const old of readdirSync(cacheDir)) {
      const path = join(cacheDir, old);
      if (path !== dir && Date.now() - statSync(path).mtimeMs > STALE_BUILD_MS)
        rmSync(path, { recursive: true, force: true });
    }
  }
  built = dir;
  return dir;
}

/**
 * The node arguments and environment that start `src/bin/<entry>.ts` from the built tree. The
 * console's files stay where `npm run build:console` writes them (dist/console).
 */
export function builtEntry(entry: string): { args: string[]; env: Record<string, string> } {
  return {
    args: ['--enable-source-maps', join(builtTree(), 'bin', `${entry}.js`)],
    env: { CONSOLE_DIR: join(root, 'dist', 'console') },
  };
}
