import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'vite';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/** Text files worth compressing; images and fonts are compressed already. */
const COMPRESSIBLE = /\.(js|mjs|css|svg|json)$/;

/**
 * Writes `<file>.br` (brotli, quality 11) and `<file>.gz` (gzip, level 9) beside each compressible
 * file among `names` (paths under `dir`), for the web process to send to a browser that accepts
 * them (src/api/console/static.ts). Done once at build time, so the server spends no CPU on it and
 * can afford the slowest, smallest settings. A variant that would not be smaller is not written.
 * Returns the files written, relative to `dir`.
 */
export async function precompress(dir: string, names: readonly string[]): Promise<string[]> {
  // All at once: zlib's async calls run on libuv's thread pool, beside the build's own work.
  const written = await Promise.all(
    names
      .filter((name) => COMPRESSIBLE.test(name))
      .map(async (name) => {
        const bytes = await readFile(join(dir, name));
        const variants = await Promise.all([
          brotli(bytes, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
              [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
              [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
            },
          }).then((packed) => [`${name}.br`, packed] as const),
          gz(bytes, { level: 9 }).then((packed) => [`${name}.gz`, packed] as const),
        ]);
        const smaller = variants.filter(([, packed]) => packed.length < bytes.length);
        await Promise.all(smaller.map(([file, packed]) => writeFile(join(dir, file), packed)));
        return smaller.map(([file]) => file);
      }),
  );
  return written.flat();
}

/** The Vite plugin: pre-compresses the hashed assets of a build (not index.html, sent uncompressed). */
export function precompressAssets(): Plugin {
  return {
    name: 'herald-precompress',
    apply: 'build',
    async writeBundle(options, bundle) {
      if (options.dir === undefined) return;
      await precompress(
        options.dir,
        Object.keys(bundle).filter((name) => name.startsWith('assets/')),
      );
    },
  };
}
