import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The browser journeys drive the console as built for production, so it is built once before
 * them (about 2 s), also when `npm test` runs without `npm run build` first.
 */
export default async function setup(): Promise<void> {
  // Like the services, Debian's chromium is installed on first use, so `npm test` alone suffices.
  if (!process.env.CHROMIUM_PATH && !existsSync('/usr/bin/chromium')) {
    execFileSync('bash', [`${root}scripts/install-chromium.sh`], { stdio: ['ignore', 'inherit', 'inherit'] });
  }
  await build({ configFile: `${root}console/vite.config.ts`, logLevel: 'warn' });
  if (!existsSync(`${root}dist/console/index.html`)) throw new Error('console build wrote no index.html');
}
