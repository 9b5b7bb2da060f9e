import { type CompiledTemplate, compileTemplate } from '../../render/index.js';

/** Most compiled templates kept (by id and version; an edit makes a new version). */
export const COMPILED_CACHE_MAX_ENTRIES = 2_000;

/**
 * Compiled templates by id and version, compiled on first use; past COMPILED_CACHE_MAX_ENTRIES
 * the oldest goes. A version never changes, so an entry is never stale. The worker's main thread
 * (for platformNeeds) and each render thread keep one.
 */
export class CompiledTemplates {
  private readonly compiled = new Map<string, CompiledTemplate>();

  /** The compiled template for `key` (`id:version`); throws compile errors. */
  get(key: string, source: string): CompiledTemplate {
    let c = this.compiled.get(key);
    if (!c) {
      c = compileTemplate(source);
      this.compiled.set(key, c);
      if (this.compiled.size > COMPILED_CACHE_MAX_ENTRIES) {
        const oldest = this.compiled.keys().next().value;
        if (oldest !== undefined) this.compiled.delete(oldest);
      }
    }
    return c;
  }
}

/** The cache key of a template version. */
export const templateVersionKey = (id: string, version: number): string => `${id}:${version}`;
