import type { Context } from 'koa';
import { success } from './envelope.js';
import type { HeraldState } from './state.js';

/** Answers 200 with the success envelope in the caller's language. */
export function reply(ctx: Context & { state: HeraldState }, data: unknown = {}): void {
  ctx.status = 200;
  ctx.body = success(data, ctx.state.lang);
}
