/** A compile-time failure at an offset; compileTemplate turns it into the public typed error. */
export class CompileFault extends Error {
  override readonly name = 'CompileFault';
  readonly pos: number;
  /** Set when the construct is valid Twig that Herald refuses (include, source, ...). */
  readonly unavailable: boolean;
  /** Set when a compile-time resource bound was hit. */
  readonly limit: string | undefined;
  constructor(message: string, pos: number, opts: { unavailable?: boolean; limit?: string } = {}) {
    super(message);
    this.pos = pos;
    this.unavailable = opts.unavailable ?? false;
    this.limit = opts.limit;
  }
}
