import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import type { Middleware } from 'koa';
import type { Config } from '../../config/index.js';
import { HeraldError } from '../../errors/index.js';
import type { HeraldState } from '../state.js';
import { CONSOLE_PATH } from './headers.js';

const ASSETS_PREFIX = `${CONSOLE_PATH}/assets/`;
/** Asset names carry their content hash (Vite), so a name never changes meaning. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/**
 * The built console: `/console` -> 308 `/console/`; `/console/assets/*` -> the file; any other
 * path -> index.html, which the app routes on in the browser. The files are read on each request,
 * so a rebuild shows without a restart.
 */
export function consoleFiles(config: Pick<Config, 'consoleDir'>): Middleware<HeraldState> {
  const indexFile = join(config.consoleDir, 'index.html');
  const assetsDir = join(config.consoleDir, 'assets');
  return async (ctx) => {
    if (ctx.path === CONSOLE_PATH) {
      ctx.status = 308;
      ctx.redirect(`${CONSOLE_PATH}/${ctx.querystring ? `?${ctx.querystring}` : ''}`);
      return;
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      throw new HeraldError('METHOD_NOT_ALLOWED', { method: ctx.method });
    }
    if (ctx.path.startsWith(ASSETS_PREFIX)) {
      const file = assetPath(assetsDir, ctx.path.slice(ASSETS_PREFIX.length));
      const size = file === undefined ? undefined : await fileSize(file);
      if (file === undefined || size === undefined) throw new HeraldError('ROUTE_NOT_FOUND');
      ctx.set('Cache-Control', ASSET_CACHE);
      ctx.type = extname(file);
      ctx.length = size;
      ctx.body = createReadStream(file);
      return;
    }
    let html: Buffer;
    try {
      html = await readFile(indexFile);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new HeraldError('CONSOLE_NOT_BUILT');
      throw err;
    }
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  };
}

/** The file a request path names inside `dir`, or undefined when it would lead out of it. */
export function assetPath(dir: string, encoded: string): string | undefined {
  let name: string;
  try {
    name = decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
  if (name === '' || name.includes('\0') || name.includes('\\')) return undefined;
  const full = resolve(dir, name);
  return full.startsWith(dir + sep) ? full : undefined;
}

async function fileSize(file: string): Promise<number | undefined> {
  try {
    const s = await stat(file);
    return s.isFile() ? s.size : undefined;
  } catch {
    return undefined;
  }
}
