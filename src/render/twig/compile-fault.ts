import { type LocalizedText, localized } from '../../errors/index.js';

/** A compile-time resource bound that was hit: its name (limits.ts) and its text. */
export interface CompileLimit {
  readonly name: string;
  readonly text: LocalizedText;
}

/** A compile-time failure at an offset; compileTemplate turns it into the public typed error. */
export class CompileFault extends Error {
  override readonly name = 'CompileFault';
  readonly pos: number;
  /** Set when the construct is valid Twig that Herald refuses (include, source, ...). */
  readonly unavailable: boolean;
  /** Set when a compile-time resource bound was hit. */
  readonly limit: CompileLimit | undefined;
  constructor(message: string, pos: number, opts: { unavailable?: boolean; limit?: CompileLimit } = {}) {
    super(message);
    this.pos = pos;
    this.unavailable = opts.unavailable ?? false;
    this.limit = opts.limit;
  }
}

/** The nesting bound's fault: `what` (tags or expressions) nest deeper than `depth` levels. */
export function nestingFault(what: 'tags' | 'expressions', depth: number, pos: number): CompileFault {
  const en = `${what === 'tags' ? 'Tags' : 'Expressions'} nest deeper than ${depth} levels.`;
  const zh = `${what === 'tags' ? '标签' : '表达式'}嵌套超过 ${depth} 层。`;
  return new CompileFault(en, pos, { limit: { name: 'maxNestingDepth', text: localized(zh, en) } });
}
