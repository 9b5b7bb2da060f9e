import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { STAMP_FILE, sourcesHash } from '../../console/build-stamp.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The browser journeys drive the console as built for production, so it is built before them
 * (about 2 s) unless dist/console was built from the same sources (its stamp, written by the
 * build: console/build-stamp.ts), also when `npm test` runs without `npm run build` first.
 */
export default async function setup(): Promise<void> {
  // Like the services, Debian's chromium is installed on first use, so `npm test` alone suffices.
  if (!process.env.CHROMIUM_PATH && !existsSync('/usr/bin/chromium')) {
    execFileSync('bash', [`${root}scripts/install-chromium.sh`], { stdio: ['ignore', 'inherit', 'inherit'] });
  }
  const stamp = `${root}dist/console/${STAMP_FILE}`;
  const current = existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === sourcesHash();
  if (!current) await build({ configFile: `${root}console/vite.config.ts`, logLevel: 'warn' });
  if (!existsSync(`${root}dist/console/index.html`)) throw new Error('console build wrote no index.html');
}
