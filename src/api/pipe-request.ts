import { HeraldError } from '../errors/index.js';
import { credential } from './auth.js';

/*
 * What a pipe request carries besides its body: the query and the pipe token. No Koa types:
 * the send endpoint is served before Koa (send-pipemsg/handler.ts) and pipemsg-status inside it.
 */

export type Query = Record<string, string | string[] | undefined>;

/**
 * A query string as URLSearchParams reads it (a repeated name gives an array, a name without
 * `=` an empty string, `+` a space, %-escapes decoded), split by hand when nothing in it needs
 * decoding (no `%`, no `+`): every pipe URL Herald hands out.
 */
export function parseQuery(qs: string): Query {
  const out: Query = {};
  if (qs === '') return out;
  if (qs.includes('%') || qs.includes('+')) {
    for (const [name, value] of new URLSearchParams(qs)) addParam(out, name, value);
    return out;
  }
  for (const pair of qs.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    if (eq < 0) addParam(out, pair, '');
    else addParam(out, pair.slice(0, eq), pair.slice(eq + 1));
  }
  return out;
}

function addParam(out: Query, name: string, value: string): void {
  const seen = Object.hasOwn(out, name) ? out[name] : undefined;
  const next = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  // A plain assignment of `__proto__` would set the object's prototype instead.
  if (name === '__proto__') {
    Object.defineProperty(out, name, { value: next, writable: true, enumerable: true, configurable: true });
  } else out[name] = next;
}

/**
 * The pipe token: `Authorization: Pipe <token>` (keeps it out of URLs and access logs) or the
 * `access_token` query parameter (the platform's callback URL). Never logged, never echoed.
 */
export function pipeToken(authorization: string | undefined, query: Query): string {
  const fromHeader = credential(authorization, 'Pipe');
  if (fromHeader !== undefined) return fromHeader;
  const fromQuery = query.access_token;
  if (typeof fromQuery === 'string' && fromQuery !== '') return fromQuery;
  if (fromQuery !== undefined) throw new HeraldError('INVALID_TOKEN');
  throw new HeraldError('UNAUTHENTICATED');
}
