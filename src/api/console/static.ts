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
 * path -> index.html, which the app routes on in the browser. An asset is sent as its .br or .gz
 * variant (written by the build) to a client that accepts it. The files are read on each request,
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
      const sent = await encodedVariant(file, size, ctx.get('Accept-Encoding'));
      ctx.set('Cache-Control', ASSET_CACHE);
      if (sent.varies) ctx.vary('Accept-Encoding');
      if (sent.encoding !== undefined) ctx.set('Content-Encoding', sent.encoding);
      ctx.type = extname(file);
      ctx.length = sent.size;
      ctx.body = createReadStream(sent.file);
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

/** Pre-compressed variants written by the build (console/precompress.ts), best first. */
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;

/**
 * The file to send for `file`: its best pre-compressed variant the client accepts, else the file
 * itself. `varies` says whether any variant exists, that is whether the answer depends on
 * Accept-Encoding (and so must say `Vary: Accept-Encoding` to caches).
 */
async function encodedVariant(
  file: string,
  size: number,
  acceptEncoding: string,
): Promise<{ file: string; size: number; encoding?: string; varies: boolean }> {
  let varies = false;
  for (const e of ENCODINGS) {
    const variantSize = await fileSize(file + e.suffix);
    if (variantSize === undefined) continue;
    varies = true;
    if (acceptsEncoding(acceptEncoding, e.name))
      return { file: file + e.suffix, size: variantSize, encoding: e.name, varies };
  }
  return { file, size, varies };
}

/**
 * Whether an Accept-Encoding header admits `encoding`: named with a q above 0, or not named and
 * `*` admitted. Our own order (br before gzip) decides between admitted ones, not the client's q:
 * browsers send every one they support at the same q.
 */
export function acceptsEncoding(header: string, encoding: string): boolean {
  let star = false;
  for (const part of header.split(',')) {
    const [token = '', ...params] = part.split(';').map((s) => s.trim());
    const q = params.find((p) => /^q\s*=/i.test(p));
    const admitted = q === undefined || Number(q.slice(q.indexOf('=') + 1)) > 0;
    const name = token.toLowerCase();
    if (name === encoding) return admitted;
    if (name === '*') star = admitted;
  }
  return star;
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
