import { HeraldError, localized } from '../../errors/index.js';
import { TemplateCompileError } from '../errors/template-compile-error.js';
import { TemplateFeatureUnavailableError } from '../errors/template-feature-unavailable-error.js';
import { TemplateLimitError } from '../errors/template-limit-error.js';
import { DEFAULT_LIMITS, type RenderLimits } from '../limits.js';
import { type PlatformContext, PlatformObject } from '../platform.js';
import { type BlockFn, ExprCompiler, type MacroFn } from './compile-expr.js';
import { CompileFault } from './compile-fault.js';
import { StmtCompiler } from './compile-stmt.js';
import { Slots, type StmtFn, Vars } from './frame.js';
import { tokenize } from './lexer.js';
import { locate } from './locate.js';
import { Parser } from './parser.js';
import { noNeeds, type PlatformNeeds } from './platform-needs.js';
import { enterBudget, leaveBudget } from './runtime/budget.js';
import { fromJson } from './runtime/php-array.js';
import { MAX_WARNINGS, type RenderOptions, RenderState, type TemplateWarning } from './runtime/state.js';
import type { Value } from './runtime/value.js';
import { Source } from './source.js';

export type { PlatformNeeds, RenderLimits, RenderOptions, TemplateWarning };
export { MAX_WARNINGS };

/** A render's output and the PHP warnings it went past (docs/templates.md, "Warnings"). */
export interface RenderResult {
  readonly output: string;
  /** The first MAX_WARNINGS warnings, in the order raised. */
  readonly warnings: readonly TemplateWarning[];
  /** How many warnings the render raised in all (more than `warnings` holds past the bound). */
  readonly warningCount: number;
}

export interface CompiledTemplate {
  /** Renders synchronously; throws TemplateRenderError or TemplateLimitError. */
  render(data: unknown, platform: PlatformContext, options?: RenderOptions): string;
  /** Renders like `render`, also answering the warnings PHP would have printed and gone past. */
  renderWithWarnings(data: unknown, platform: PlatformContext, options?: RenderOptions): RenderResult;
  /** Which PLATFORM methods the template can call, worked out at compile time. */
  readonly platformNeeds: PlatformNeeds;
}

function compileError(err: unknown, source: Source): HeraldError {
  if (err instanceof CompileFault) {
    const p = source.position(err.pos);
    if (err.limit) return new TemplateLimitError(err.limit.name, err.limit.text, p);
    if (err.unavailable) return new TemplateFeatureUnavailableError(err.message, p.line, p.column, p.excerpt);
    return new TemplateCompileError(err.message, p.line, p.column, p.excerpt);
  }
  if (err instanceof HeraldError) return err;
  if (err instanceof RangeError) {
    return new TemplateLimitError(
      'maxNestingDepth',
      localized('模板嵌套过深', 'the template nests too deeply'),
      source.position(0),
    );
  }
  throw err;
}

/**
 * Compiles Twig source to JavaScript closures (no eval, no generated code). The result is
 * reusable and safe to share: each render gets its own state.
 */
export function compileTemplate(
  source: string,
  options?: { limits?: Partial<RenderLimits> },
): CompiledTemplate {
  const limits: RenderLimits = { ...DEFAULT_LIMITS, ...(options?.limits ?? {}) };
  const src = new Source(source);
  if (src.code.length > limits.maxTemplateLength) {
    throw new TemplateLimitError(
      'maxTemplateLength',
      {
        'zh-CN': `模板超过 ${limits.maxTemplateLength} 个字符`,
        'en-US': `the template is longer than ${limits.maxTemplateLength} characters`,
      },
      src.position(limits.maxTemplateLength),
    );
  }
  const needs = noNeeds();
  const macros = new Map<string, MacroFn>();
  const blocks = new Map<string, BlockFn>();
  const slots = new Slots();
  let body: StmtFn;
  try {
    const ast = new Parser(tokenize(src.code), limits.maxNestingDepth).parse();
    const x = new ExprCompiler(src, macros, needs, blocks, limits.maxNestingDepth * 8, slots);
    const sc = new StmtCompiler(x);
    for (const def of ast.macros.values()) macros.set(def.name, sc.compileMacro(def));
    body = sc.compileList(ast.body, false);
  } catch (err) {
    throw compileError(err, src);
  }
  const platformNeeds: PlatformNeeds = Object.freeze({ ...needs });
  const run = (data: unknown, platform: PlatformContext, renderOptions?: RenderOptions): RenderState => {
    const p = new PlatformObject(platform ?? {});
    const globals = new Map<string, Value>([
      ['PLATFORM', p],
      ['KOOK', p],
    ]);
    const st = new RenderState(limits, renderOptions ?? {}, globals);
    // PHP Twig's context is the render's variables, then the globals they do not shadow
    const vars = Vars.empty(slots);
    vars.setName('data', fromJson(data));
    const extra = renderOptions?.variables;
    if (extra !== undefined) for (const name of Object.keys(extra)) vars.setName(name, fromJson(extra[name]));
    for (const [name, v] of globals) if (!vars.hasName(name)) vars.setName(name, v);
    const previous = enterBudget(st);
    try {
      body({ vars, st });
      // a warning outside any positioned node (none is known): the template's start
      if (st.unplaced !== 0) st.place(src, 0);
    } catch (err) {
      throw locate(err, src, 0);
    } finally {
      leaveBudget(previous);
    }
    return st;
  };
  return {
    platformNeeds,
    render: (data, platform, renderOptions) => run(data, platform, renderOptions).out,
    renderWithWarnings(data, platform, renderOptions) {
      const st = run(data, platform, renderOptions);
      return { output: st.out, warnings: st.warnings, warningCount: st.warningCount };
    },
  };
}
