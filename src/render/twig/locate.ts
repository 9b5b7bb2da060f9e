import { HeraldError } from '../../errors/index.js';
import { TemplateLimitError } from '../errors/template-limit-error.js';
import { TemplateRenderError } from '../errors/template-render-error.js';
import { RuntimeFault } from './runtime/fault.js';
import { LimitFault } from './runtime/state.js';
import type { Source } from './source.js';

/**
 * Turns whatever a compiled node caught into the public typed error, adding the node's position.
 * Errors already positioned (HeraldError) pass through untouched, so the innermost node wins.
 */
export function locate(err: unknown, source: Source, pos: number): HeraldError {
  if (err instanceof HeraldError) return err;
  const p = source.position(pos);
  if (err instanceof LimitFault) return new TemplateLimitError(err.limit, err.text, p);
  if (err instanceof RuntimeFault) return new TemplateRenderError(err.message, p.line, p.column, p.excerpt);
  if (err instanceof RangeError) {
    // "Maximum call stack size exceeded" or "Invalid string length": a bound we did not foresee,
    // named in the engine's own (English) words
    return new TemplateLimitError(
      'engine',
      { 'zh-CN': `引擎的限制：${err.message}`, 'en-US': err.message },
      p,
    );
  }
  return new TemplateRenderError(
    `internal error: ${(err as Error)?.message ?? String(err)}`,
    p.line,
    p.column,
    p.excerpt,
  );
}
