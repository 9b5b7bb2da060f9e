/**
 * Resource bounds for one template compile or render. Every bound exists so that a hostile or
 * careless template ends with a TemplateLimitError quickly instead of taking the worker down.
 * The defaults leave ample room for real card and KMarkdown templates.
 */
export interface RenderLimits {
  /** Longest template source accepted (characters): bounds lexing and parsing work. */
  maxTemplateLength: number;
  /** Deepest nesting of expressions and tags; bounds parser recursion and the compiled closure depth. */
  maxNestingDepth: number;
  /** Work units per render: loop iterations, calls, and array/string elements touched by filters. */
  maxSteps: number;
  /**
   * Wall-clock backstop per render (ms), checked every few hundred steps. Kept well above what
   * the step budget costs, so that the steps, not the machine's load, end a long render
   * (docs/templates.md, "The render clock").
   */
  maxRenderMs: number;
  /** Longest output of one render (UTF-16 code units, ~1 MiB). */
  maxOutputLength: number;
  /** Longest string a single operation may produce. */
  maxStringLength: number;
  /** Most elements an array built by one operation may hold (range, batch, split, merge...). */
  maxArrayLength: number;
  /** Deepest macro call chain. */
  maxMacroDepth: number;
}

export const DEFAULT_LIMITS: Readonly<RenderLimits> = Object.freeze({
  maxTemplateLength: 200_000,
  maxNestingDepth: 64,
  maxSteps: 1_000_000,
  maxRenderMs: 250,
  maxOutputLength: 1_048_576,
  maxStringLength: 1_048_576,
  maxArrayLength: 100_000,
  maxMacroDepth: 64,
});

/** The failure image PLATFORM.image() answers when neither the url nor a default is usable. */
export const DEFAULT_FAILURE_IMAGE_URL = 'https://img.kookapp.cn/assets/2022-08/herald-default-failure.png';

/** KMarkdown (type 9) messages longer than this are refused (platform-facts: 8,000 characters). */
export const MAX_MESSAGE_LENGTH = 8000;
