import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Plugin } from 'vite';

const root = join(import.meta.dirname, '..');

/** The file in the build's output that names the sources it was built from. */
export const STAMP_FILE = '.sources-hash';

/** Every file a console build reads: its own sources and the src/ modules they import, the lock. */
function inputs(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name));
  return [...walk(join(root, 'console')), ...walk(join(root, 'src')), join(root, 'package-lock.json')].sort();
}

/** A hash of the names and contents of everything a console build reads. */
export function sourcesHash(): string {
  const hash = createHash('sha256');
  for (const file of inputs()) {
    hash.update(relative(root, file));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/**
 * Writes STAMP_FILE into the output once the bundle is written, so that a later `npm test` can
 * tell the build is current and skip it (test/browser/global-setup.ts).
 */
export function buildStamp(): Plugin {
  let outDir = '';
  return {
    name: 'herald-build-stamp',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      writeFileSync(join(outDir, STAMP_FILE), `${sourcesHash()}\n`);
    },
  };
}
