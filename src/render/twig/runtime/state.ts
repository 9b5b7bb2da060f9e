import type { LocalizedText } from '../../../errors/index.js';
import type { RenderLimits } from '../../limits.js';
import { RuntimeFault } from './fault.js';
import type { Value } from './value.js';

/** Options a caller may pass to one render. */
export interface RenderOptions {
  /** "Now" in ms since the epoch, for date(); defaults to Date.now(). */
  now?: number;
  /** Random source in [0, 1) for random(); tests pass a seeded one. */
  random?: () => number;
  /** Default timezone of the date filter and function (IANA name); defaults to 'UTC'. */
  timezone?: string;
  /**
   * Top-level variables beside `data`, as PHP's `$twig->render($name, ['data' => ..., ...])`
   * passes them: JSON values, seen by the template's body but not by its macros (they are not
   * globals). A pipe that routes by event passes `_event` and `_headers`.
   */
  variables?: Readonly<Record<string, unknown>>;
}

/** A resource bound was exceeded; carries the bound's name for TemplateLimitError. */
export class LimitFault extends RuntimeFault {
  readonly limit: string;
  /** The message in each language (TemplateLimitError's detail); `message` is the English. */
  readonly text: LocalizedText;
  constructor(limit: string, text: LocalizedText) {
    super(text['en-US']);
    this.limit = limit;
    this.text = text;
  }
}

/** The maxMacroDepth bound's text (macros and blocks that call themselves). */
export const macroDepthText = (n: number): LocalizedText => ({
  'zh-CN': `宏调用嵌套超过 ${n} 层`,
  'en-US': `macro calls nest deeper than ${n}`,
});

const TIME_CHECK_EVERY = 512;

/** A PHP warning the render raised and went past, at the template position it came from. */
export interface TemplateWarning {
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

/**
 * Warnings one render keeps: a loop that warns on every item would otherwise grow the list (and
 * the delivery record) with the input; the rest are only counted.
 */
export const MAX_WARNINGS = 20;

/** Turns a template offset into line and column (the template's Source). */
export interface Locator {
  position(offset: number): { line: number; column: number };
}

/** Mutable state of one render: output buffer, budgets and the caller's options. */
export class RenderState {
  out = '';
  steps = 0;
  /** Warnings kept (at most MAX_WARNINGS), in the order raised. */
  readonly warnings: { message: string; line: number; column: number }[] = [];
  /** Every warning raised, kept or not. */
  warningCount = 0;
  /** Kept warnings at the end of `warnings` still waiting for their node's position. */
  unplaced = 0;
  macroDepth = 0;
  private nextTimeCheck: number;
  private readonly deadline: number;
  readonly limits: RenderLimits;
  readonly now: number;
  readonly random: () => number;
  readonly timezone: string;
  /** Globals visible in every scope (PLATFORM, KOOK, _self). */
  readonly globals: ReadonlyMap<string, Value>;

  constructor(limits: RenderLimits, options: RenderOptions, globals: ReadonlyMap<string, Value>) {
    this.limits = limits;
    this.deadline = performance.now() + limits.maxRenderMs;
    this.nextTimeCheck = Math.min(TIME_CHECK_EVERY, limits.maxSteps + 1);
    this.now = options.now ?? Date.now();
    this.random = options.random ?? Math.random;
    this.timezone = options.timezone ?? 'UTC';
    this.globals = globals;
  }

  /** Charges `n` units of work; ends the render when the step or time budget is spent. */
  step(n = 1): void {
    this.steps += n;
    // a big charge means a costly operation (megabyte strings): look at the clock right away
    if (this.steps >= this.nextTimeCheck || n >= 64) {
      if (this.steps > this.limits.maxSteps) {
        throw new LimitFault('maxSteps', {
          'zh-CN': `渲染超过 ${this.limits.maxSteps} 步`,
          'en-US': `the render took more than ${this.limits.maxSteps} steps`,
        });
      }
      this.nextTimeCheck = Math.min(this.steps + TIME_CHECK_EVERY, this.limits.maxSteps + 1);
      if (performance.now() > this.deadline) {
        throw new LimitFault('maxRenderMs', {
          'zh-CN': `渲染用时超过 ${this.limits.maxRenderMs} 毫秒`,
          'en-US': `the render took longer than ${this.limits.maxRenderMs} ms`,
        });
      }
    }
  }

  warn(message: string): void {
    this.warningCount++;
    if (this.warnings.length >= MAX_WARNINGS) return;
    this.warnings.push({ message, line: 0, column: 0 });
    this.unplaced++;
  }

  /**
   * Gives the warnings raised inside a compiled node its position. The innermost node that
   * completes places them, so a warning points at the expression that raised it.
   */
  place(locator: Locator, offset: number): void {
    const { line, column } = locator.position(offset);
    const w = this.warnings;
    for (let i = w.length - this.unplaced; i < w.length; i++) {
      w[i]!.line = line;
      w[i]!.column = column;
    }
    this.unplaced = 0;
  }

  /** Ensures a string an operation is about to produce stays within bounds. */
  checkString(length: number): void {
    if (length > this.limits.maxStringLength) {
      throw new LimitFault('maxStringLength', {
        'zh-CN': `字符串将超过 ${this.limits.maxStringLength} 个字符`,
        'en-US': `a string would be longer than ${this.limits.maxStringLength} characters`,
      });
    }
    if (length > 4096) this.step(length >> 10);
  }

  checkArray(length: number): void {
    if (length > this.limits.maxArrayLength) {
      throw new LimitFault('maxArrayLength', {
        'zh-CN': `数组将超过 ${this.limits.maxArrayLength} 个元素`,
        'en-US': `an array would hold more than ${this.limits.maxArrayLength} elements`,
      });
    }
    this.step(length >> 4);
  }

  write(s: string): void {
    this.out += s;
    if (this.out.length > this.limits.maxOutputLength) {
      throw new LimitFault('maxOutputLength', {
        'zh-CN': `输出超过 ${this.limits.maxOutputLength} 个字符`,
        'en-US': `the output is longer than ${this.limits.maxOutputLength} characters`,
      });
    }
  }
}
