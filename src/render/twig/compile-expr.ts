import type { Arg, Expr } from './ast.js';
import { orderArgs } from './compile-args.js';
import { CompileFault, nestingFault } from './compile-fault.js';
import { escapeValue } from './filters/escape-filters.js';
import { FILTERS } from './filters/index.js';
import type { Args } from './filters/types.js';
import { type ExprFn, type Frame, type Slots, Vars } from './frame.js';
import { FUNCTIONS, TESTS, UNAVAILABLE_FUNCTIONS, UNAVAILABLE_TESTS } from './functions.js';
import { locate } from './locate.js';
import { allNeeds, PLATFORM_GLOBALS, type PlatformNeeds, recordNeed } from './platform-needs.js';
import { Arrow } from './runtime/arrow.js';
import { type AttrType, getAttribute, hasAttribute } from './runtime/attribute.js';
import { compare, looseEquals } from './runtime/compare.js';
import { castStr, toBool, toStr } from './runtime/convert.js';
import { fail } from './runtime/fault.js';
import { toKey } from './runtime/keys.js';
import { markup } from './runtime/markup.js';
import * as ops from './runtime/ops.js';
import { ArrayBuilder, jsonScalarAt, type Key, NOT_HELD, PhpArray } from './runtime/php-array.js';
import { LimitFault, macroDepthText, type RenderState } from './runtime/state.js';
import type { Value } from './runtime/value.js';
import { isSafeFor, PRE_ESCAPE_HTML } from './safety.js';
import type { Source } from './source.js';

/** A compiled macro: called with positional and named arguments, returns its output. */
export type MacroFn = (
  st: RenderState,
  args: readonly Value[],
  named: ReadonlyMap<string, Value> | undefined,
) => Value;

/** A compiled `{% block %}`: renders its body in a copy of the caller's scope. */
export type BlockFn = (f: Frame) => void;

/** Name `_self` answers with; PHP Twig prints the template's name. */
export const TEMPLATE_NAME = 'template';

type Binary = (st: RenderState, a: Value, b: Value) => Value;

const BINARY: Readonly<Record<string, Binary>> = {
  '+': (_st, a, b) => ops.add(a, b),
  '-': (_st, a, b) => ops.sub(a, b),
  '*': (_st, a, b) => ops.mul(a, b),
  '/': (_st, a, b) => ops.div(a, b),
  '//': (_st, a, b) => ops.floorDiv(a, b),
  '%': (_st, a, b) => ops.mod(a, b),
  '**': (_st, a, b) => ops.pow(a, b),
  '~': (st, a, b) => ops.concat(st, a, b),
  '==': (_st, a, b) => looseEquals(a, b),
  '!=': (_st, a, b) => !looseEquals(a, b),
  '<': (_st, a, b) => compare(a, b) < 0,
  '>': (_st, a, b) => compare(a, b) > 0,
  '<=': (_st, a, b) => compare(a, b) <= 0,
  '>=': (_st, a, b) => compare(a, b) >= 0,
  '<=>': (_st, a, b) => compare(a, b),
  in: (_st, a, b) => ops.contains(a, b),
  'not in': (_st, a, b) => !ops.contains(a, b),
  matches: (_st, a, b) => ops.matches(a, b),
  'starts with': (_st, a, b) => ops.startsWith(a, b),
  'ends with': (_st, a, b) => ops.endsWith(a, b),
  'has some': (st, a, b) => ops.hasSomeOrEvery(st, a, b, false),
  'has every': (st, a, b) => ops.hasSomeOrEvery(st, a, b, true),
  '..': (st, a, b) => ops.range(st, a, b),
  'b-and': (_st, a, b) => ops.bitAnd(a, b),
  'b-or': (_st, a, b) => ops.bitOr(a, b),
  'b-xor': (_st, a, b) => ops.bitXor(a, b),
};

const NO_ARGS: readonly Value[] = [];

/** Names that are not plain variables (their own closures answer them). */
const SPECIAL_NAMES: ReadonlySet<string> = new Set(['_self', '_charset', '_context']);

/** An expression whose value cannot depend on the render: a constant, or an array of them. */
function isConstant(e: Expr): boolean {
  if (e.k === 'const') return true;
  if (e.k !== 'array') return false;
  return e.items.every((i) => (i.key === undefined || isConstant(i.key)) && isConstant(i.value));
}

/**
 * A filter's or function's string result, checked against the string bound and charged by its
 * length: whatever a filter's arguments make it produce (escapes that grow their input, a date
 * format of a million characters), a long result costs budget and a too-long one ends the render.
 */
function checkedResult(st: RenderState, r: Value): Value {
  if (typeof r === 'string' && r.length > 4096) st.checkString(r.length);
  return r;
}

/** PHP's ArgumentCountError, raised when the template is compiled rather than rendered. */
function checkArity(fns: readonly unknown[], required: number, max: number, what: string, pos: number): void {
  for (let i = 0; i < required; i++) {
    if (fns[i] === undefined)
      throw new CompileFault(`Too few arguments for ${what}: ${required} required.`, pos);
  }
  if (fns.length > max) throw new CompileFault(`Too many arguments for ${what}: at most ${max}.`, pos);
}

function evalArgs(f: Frame, fns: readonly (ExprFn | undefined)[]): Args {
  const out = new Array<Value | undefined>(fns.length);
  for (let i = 0; i < fns.length; i++) {
    const fn = fns[i];
    out[i] = fn === undefined ? undefined : fn(f);
  }
  return out;
}

/** Parentheses leave no node in Twig's tree. */
function unparen(e: Expr): Expr {
  return e.k === 'parens' ? unparen(e.e) : e;
}

/** The template argument of block(): only this template exists (the reference's name for it). */
function sameTemplate(v: Value): void {
  const name = toStr(v);
  if (name !== TEMPLATE_NAME) fail(`Template "${name}" is not defined.`);
}

/** Compiles expressions to closures. Holds what the whole template shares (source, macros, needs). */
export class ExprCompiler {
  constructor(
    readonly source: Source,
    readonly macros: Map<string, MacroFn>,
    readonly needs: PlatformNeeds,
    /** The template's blocks by name, filled while its statements compile (block()). */
    readonly blocks: Map<string, BlockFn>,
    private readonly maxDepth: number,
    /** The variable slots of the scope compiling now (the body's, or a macro's), filled as names compile. */
    public slots: Slots,
  ) {}

  private depth = 0;

  /** Bounds the AST depth (long filter or operator chains nest without parser recursion). */
  compile(e: Expr): ExprFn {
    if (++this.depth > this.maxDepth) {
      throw nestingFault('expressions', this.maxDepth, e.pos);
    }
    try {
      return this.compileNode(e);
    } finally {
      this.depth--;
    }
  }

  private compileNode(e: Expr): ExprFn {
    switch (e.k) {
      case 'const': {
        const v = e.value;
        return () => v;
      }
      case 'name':
        return this.name(e.name);
      case 'parens':
        return this.compile(e.e);
      case 'concat': {
        const parts = e.parts.map((p) => this.compile(p));
        return (f) => {
          let s = '';
          for (const p of parts) s += castStr(p(f));
          if (s.length > 4096) f.st.checkString(s.length);
          return s;
        };
      }
      case 'array':
        return this.array(e);
      case 'getattr':
        return this.getattr(e);
      case 'unary':
        if (e.op === '-' && e.e.k === 'const' && e.e.float && e.e.value === 0) return () => -0; // PHP: -0.0
        return this.unary(e.op, this.compile(e.e), e.pos);
      case 'binary':
        return this.binary(e);
      case 'cond': {
        const c = this.compile(e.c);
        const fl = this.compile(e.f);
        if (!e.t) {
          // Twig compiles `a ?: b` to `a ? a : b`: a true `a` is evaluated again, and its
          // warnings raised twice; a run that raised none gives the same value again
          return (f) => {
            const warned = f.st.warningCount;
            const v = c(f);
            if (!toBool(v)) return fl(f);
            return f.st.warningCount === warned ? v : c(f);
          };
        }
        const t = this.compile(e.t);
        return (f) => (toBool(c(f)) ? t(f) : fl(f));
      }
      case 'filter': {
        const fn = this.filter(e.name, this.compile(e.e), e.args, e.pos, isSafeFor(e.e, 'html'));
        return e.name === 'length' && e.args.length === 0 ? this.lengthOfAttribute(e.e, fn) : fn;
      }
      case 'func':
        return this.func(e.name, e.args, e.pos);
      case 'test':
        return this.test(e);
      case 'arrow': {
        const body = this.compile(e.body);
        const params = e.params;
        const paramSlots = params.map((p) => this.slots.of(p));
        return (f) =>
          new Arrow((st, args) => {
            if (args.length < params.length) {
              fail(
                `Too few arguments to function {closure}(), ${args.length} passed and exactly ${params.length} expected`,
              );
            }
            const vars = f.vars.copy();
            for (let i = 0; i < paramSlots.length; i++) vars.set(paramSlots[i]!, args[i] ?? null);
            return body({ vars, st });
          });
      }
      case 'macrocall':
        return this.macroCall(e.macro, e.args, e.pos);
    }
  }

  private guard(fn: ExprFn, pos: number): ExprFn {
    const source = this.source;
    return (f) => {
      try {
        const v = fn(f);
        if (f.st.unplaced !== 0) f.st.place(source, pos);
        return v;
      } catch (err) {
        throw locate(err, source, pos);
      }
    };
  }

  private name(name: string): ExprFn {
    if (name === '_self') return () => TEMPLATE_NAME;
    if (name === '_charset') return () => 'UTF-8';
    if (name === '_context') {
      allNeeds(this.needs);
      return (f) => PhpArray.fromMap(f.vars.toMap());
    }
    if (PLATFORM_GLOBALS.has(name)) allNeeds(this.needs);
    return this.read(name);
  }

  /** A variable's read: its slot, null when the variable is not set. */
  read(name: string): ExprFn {
    const i = this.slots.of(name);
    return (f) => {
      const v = f.vars.values[i];
      return v === undefined ? null : v;
    };
  }

  private array(e: Extract<Expr, { k: 'array' }>): ExprFn {
    const fn = this.arrayFn(e);
    if (!isConstant(e)) return fn;
    // a literal of constants is built once: arrays are immutable, so every render may share it
    // (a replace table or an `in` list in a loop costs nothing after the first build)
    try {
      // constants raise no warning: the guard's check of unplaced warnings is all a state is asked
      const v = fn({ vars: Vars.empty(this.slots), st: { unplaced: 0 } as unknown as RenderState });
      return () => v;
    } catch {
      return fn;
    }
  }

  private arrayFn(e: Extract<Expr, { k: 'array' }>): ExprFn {
    const items = e.items.map((i) => ({
      key: i.key ? this.compile(i.key) : undefined,
      value: this.compile(i.value),
    }));
    if (items.every((i) => i.key === undefined)) {
      const values = items.map((i) => i.value);
      return (f) => PhpArray.list(values.map((v) => v(f)));
    }
    return this.guard((f) => {
      const b = new ArrayBuilder();
      for (const i of items) {
        if (i.key) b.set(toKey(i.key(f)), i.value(f));
        else b.push(i.value(f));
      }
      return b.build();
    }, e.pos);
  }

  private getattr(e: Extract<Expr, { k: 'getattr' }>): ExprFn {
    const argCount = e.args?.length ?? 0;
    let obj: ExprFn;
    if (e.obj.k === 'name' && PLATFORM_GLOBALS.has(e.obj.name) && e.attr.k === 'const') {
      recordNeed(this.needs, String(e.attr.value), argCount);
      obj = this.read(e.obj.name);
    } else {
      obj = this.compile(e.obj);
    }
    const type: AttrType = e.type;
    const args = e.args ? this.positional(e.args) : undefined;
    if (e.attr.k === 'const' && !args && type !== 'method') {
      const attr = e.attr.value;
      const key =
        typeof attr === 'string' || typeof attr === 'number' || typeof attr === 'bigint'
          ? toKey(attr)
          : undefined;
      const slow = this.guard((f) => getAttribute(f.st, obj(f), attr, type, NO_ARGS), e.pos);
      if (key === undefined) return slow;
      const root = e.obj;
      const chained = this.chainedRead(root, key, obj, slow);
      if (chained !== undefined) return chained;
      if (root.k === 'name' && !SPECIAL_NAMES.has(root.name) && !PLATFORM_GLOBALS.has(root.name)) {
        // `item.key`, the commonest node: the variable is read here, not through its own closure
        const i = this.slots.of(root.name);
        return (f) => {
          const o = f.vars.values[i];
          if (o instanceof PhpArray) return o.get(key) ?? null;
          if (typeof o !== 'object' || o === null) return null;
          return slow(f);
        };
      }
      return (f) => {
        const o = obj(f);
        if (o instanceof PhpArray) return o.get(key) ?? null;
        if (typeof o !== 'object' || o === null) return null;
        return slow(f);
      };
    }
    const attr = this.compile(e.attr);
    return this.guard((f) => {
      const o = obj(f);
      const a = attr(f);
      return getAttribute(f.st, o, a, type, args ? args.map((x) => x(f)) : NO_ARGS);
    }, e.pos);
  }

  /** `name.key` with a constant key, off a template variable (not `_context`, not a global). */
  private constKeyOfVariable(e: Expr): { slot: number; key: Key } | undefined {
    if (e.k !== 'getattr' || e.args || e.type === 'method' || e.attr.k !== 'const') return;
    const root = e.obj;
    if (root.k !== 'name' || SPECIAL_NAMES.has(root.name) || PLATFORM_GLOBALS.has(root.name)) return;
    const attr = e.attr.value;
    if (typeof attr !== 'string' && typeof attr !== 'number' && typeof attr !== 'bigint') return;
    return { slot: this.slots.of(root.name), key: toKey(attr) };
  }

  /**
   * `item.key|length` where the input holds a JSON array there: its length, without the view
   * getattr would make for it (a card counts each commit's added, modified and removed files).
   * Anything else goes through `full`, the filter as compiled.
   */
  private lengthOfAttribute(input: Expr, full: ExprFn): ExprFn {
    const read = this.constKeyOfVariable(input);
    if (read === undefined) return full;
    const { slot: i, key } = read;
    return (f) => {
      const o = f.vars.values[i];
      if (o instanceof PhpArray) {
        const n = o.listLengthAt(key);
        if (n !== undefined) return n;
      }
      return full(f);
    };
  }

  /**
   * `a.b.c` (constant keys, a variable at the root): when `a.b` is a JSON object of the input and
   * `c` a scalar there, it is read without making the view of `a.b` (a loop's `commit.author.name`
   * made one per commit). Anything else takes the nested reads as compiled (`obj`, then `slow`).
   */
  private chainedRead(inner: Expr, key: Key, obj: ExprFn, slow: ExprFn): ExprFn | undefined {
    const read = this.constKeyOfVariable(inner);
    if (read === undefined) return;
    const { slot: i, key: innerKey } = read;
    return (f) => {
      const o = f.vars.values[i];
      if (o instanceof PhpArray) {
        const held = o.heldAt(innerKey);
        if (held !== NOT_HELD) {
          // absent or a scalar at a.b: a.b.c is null, as the nested reads answer
          if (held === undefined || typeof held !== 'object' || held === null) return null;
          const v = jsonScalarAt(held, key);
          if (v !== undefined) return v;
        }
      }
      const x = obj(f);
      if (x instanceof PhpArray) return x.get(key) ?? null;
      if (typeof x !== 'object' || x === null) return null;
      return slow(f);
    };
  }

  private positional(args: readonly Arg[]): ExprFn[] {
    return args.map((a) => this.compile(a.value));
  }

  unary(op: string, e: ExprFn, pos: number): ExprFn {
    if (op === 'not') return (f) => !toBool(e(f));
    if (op === '-') return this.guard((f) => ops.neg(e(f)), pos);
    return this.guard((f) => ops.pos(e(f)), pos);
  }

  private binary(e: Extract<Expr, { k: 'binary' }>): ExprFn {
    const op = e.op;
    if (op === '**' && e.l.k === 'unary' && (e.l.op === '-' || e.l.op === '+')) {
      // Twig compiles `-2 ** 2` to PHP `-2 ** 2`, where ** binds tighter than the sign: -(2 ** 2)
      const inner = this.binary({ ...e, l: e.l.e });
      return this.unary(e.l.op, inner, e.pos);
    }
    const l = this.compile(e.l);
    const r = this.compile(e.r);
    if (op === 'and') return (f) => toBool(l(f)) && toBool(r(f));
    if (op === 'or') return (f) => toBool(l(f)) || toBool(r(f));
    if (op === '??') {
      // Twig compiles `a ?? b` to `(a is defined and a is not null) ? a : b`: the left side must
      // be one the defined test takes (a filter or an operation is a syntax error)
      const defined = this.defined(e.l);
      const left = unparen(e.l).k;
      if (left === 'func' || left === 'macrocall') {
        // block() of a missing block would fail: the defined test comes first
        return (f) => {
          if (!defined(f)) return r(f);
          const v = l(f);
          return v === null ? r(f) : v;
        };
      }
      return (f) => {
        const v = l(f);
        return v === null ? r(f) : v;
      };
    }
    const fn = BINARY[op];
    if (!fn) throw new CompileFault(`Unknown operator "${op}".`, e.pos);
    if (op === '==' || op === '!=') return (f) => fn(f.st, l(f), r(f));
    const source = this.source;
    const pos = e.pos;
    return (f) => {
      try {
        const result = fn(f.st, l(f), r(f));
        if (f.st.unplaced !== 0) f.st.place(source, pos);
        return result;
      } catch (err) {
        throw locate(err, source, pos);
      }
    };
  }

  filter(name: string, rawInput: ExprFn, args: readonly Arg[], pos: number, inputHtmlSafe: boolean): ExprFn {
    const def = FILTERS.get(name);
    if (!def) throw new CompileFault(`Unknown "${name}" filter.`, pos);
    // nl2br and spaceless escape their input for HTML first (Twig's pre_escape), even with
    // autoescape off, unless the input is known to be safe
    const input: ExprFn =
      PRE_ESCAPE_HTML.has(name) && !inputHtmlSafe ? (f) => escapeValue(rawInput(f), 'html', true) : rawInput;
    const fns = orderArgs(args, def.params, false, `filter "${name}"`, pos, (a) => this.compile(a.value));
    checkArity(
      fns,
      def.required ?? 0,
      def.strictArity ? def.params.length : Infinity,
      `filter "${name}"`,
      pos,
    );
    const fn = def.fn;
    const source = this.source;
    // One closure per arity, with its own try/catch rather than a guard around it: a filter
    // call is the commonest node, and each closure level is a call V8 cannot inline.
    // String filters are linear in their input: a long input is charged to the budget.
    if (fns.length === 0) {
      return (f) => {
        try {
          const v = input(f);
          if (typeof v === 'string' && v.length > 4096) f.st.step(v.length >> 10);
          const result = checkedResult(f.st, fn(f.st, v, NO_ARGS));
          if (f.st.unplaced !== 0) f.st.place(source, pos);
          return result;
        } catch (err) {
          throw locate(err, source, pos);
        }
      };
    }
    const a0 = fns[0];
    if (fns.length === 1 && a0 !== undefined) {
      return (f) => {
        try {
          const v = input(f);
          if (typeof v === 'string' && v.length > 4096) f.st.step(v.length >> 10);
          const result = checkedResult(f.st, fn(f.st, v, [a0(f)]));
          if (f.st.unplaced !== 0) f.st.place(source, pos);
          return result;
        } catch (err) {
          throw locate(err, source, pos);
        }
      };
    }
    return (f) => {
      try {
        const v = input(f);
        if (typeof v === 'string' && v.length > 4096) f.st.step(v.length >> 10);
        const result = checkedResult(f.st, fn(f.st, v, evalArgs(f, fns)));
        if (f.st.unplaced !== 0) f.st.place(source, pos);
        return result;
      } catch (err) {
        throw locate(err, source, pos);
      }
    };
  }

  private func(name: string, args: readonly Arg[], pos: number): ExprFn {
    if (name === 'block') return this.blockCall(args, pos);
    const unavailable = UNAVAILABLE_FUNCTIONS.get(name);
    if (unavailable) throw new CompileFault(unavailable, pos, { unavailable: true });
    const def = FUNCTIONS.get(name);
    if (!def) throw new CompileFault(`Unknown "${name}" function.`, pos);
    const fns = orderArgs(args, def.params, def.variadic ?? false, `function "${name}"`, pos, (a) =>
      this.compile(a.value),
    );
    if (!def.variadic)
      checkArity(
        fns,
        def.required ?? 0,
        def.strictArity ? def.params.length : Infinity,
        `function "${name}"`,
        pos,
      );
    if (def.variadic && fns.length === 0)
      throw new CompileFault(`${name}() expects at least 1 argument, 0 given`, pos);
    const fn = def.fn;
    return this.guard((f) => {
      f.st.step();
      return checkedResult(f.st, fn(f.st, evalArgs(f, fns)));
    }, pos);
  }

  /** block(name, template?): the block's output (safe, as Twig's), in a copy of the scope. */
  private blockCall(args: readonly Arg[], pos: number): ExprFn {
    const [nameFn, templateFn] = this.blockArgs(args, pos);
    const blocks = this.blocks;
    return this.guard((f) => {
      const name = toStr(nameFn(f));
      if (templateFn) sameTemplate(templateFn(f));
      const block = blocks.get(name);
      if (!block) return fail(`Block "${name}" on template "${TEMPLATE_NAME}" does not exist.`);
      const st = f.st;
      // a block that calls itself recurses like a macro: the same depth bound holds
      if (st.macroDepth >= st.limits.maxMacroDepth) {
        throw new LimitFault('maxMacroDepth', macroDepthText(st.limits.maxMacroDepth));
      }
      st.step();
      st.macroDepth++;
      const saved = st.out;
      st.out = '';
      try {
        block(f);
        return markup(st.out);
      } finally {
        st.out = saved;
        st.macroDepth--;
      }
    }, pos);
  }

  private blockArgs(args: readonly Arg[], pos: number): [ExprFn, ExprFn | undefined] {
    const fns = orderArgs(args, ['name', 'template'], false, 'function "block"', pos, (a) =>
      this.compile(a.value),
    );
    checkArity(fns, 1, 2, 'function "block"', pos);
    return [fns[0]!, fns[1]];
  }

  private test(e: Extract<Expr, { k: 'test' }>): ExprFn {
    const not = e.not;
    if (e.name === 'defined') {
      const d = this.defined(e.e);
      return not ? (f) => !d(f) : d;
    }
    const unavailable = UNAVAILABLE_TESTS.get(e.name);
    if (unavailable) throw new CompileFault(unavailable, e.pos, { unavailable: true });
    const def = TESTS.get(e.name);
    if (!def) throw new CompileFault(`Unknown "${e.name}" test.`, e.pos);
    const input = this.compile(e.e);
    const fns = orderArgs(e.args, def.params, false, `test "${e.name}"`, e.pos, (a) => this.compile(a.value));
    const fn = def.fn;
    return this.guard((f) => {
      const r = fn(f.st, input(f), evalArgs(f, fns));
      return not ? !r : r;
    }, e.pos);
  }

  /** `x is defined`: variables and attributes exist (even when null); other expressions are defined. */
  private defined(expr: Expr): (f: Frame) => boolean {
    const e = unparen(expr);
    if (e.k === 'name') {
      const n = e.name;
      if (n === '_self' || n === '_context' || n === '_charset') return () => true;
      const i = this.slots.of(n);
      return (f) => f.vars.values[i] !== undefined;
    }
    if (e.k === 'getattr') {
      const obj = this.compile(e.obj);
      const attr = this.compile(e.attr);
      const type = e.type;
      return (f) => hasAttribute(obj(f), attr(f), type);
    }
    if (e.k === 'func' && e.name === 'attribute') {
      // Twig turns `attribute(o, a) is defined` into the attribute's own defined check
      const [obj, attr] = orderArgs(
        e.args,
        ['object', 'attribute', 'arguments'],
        false,
        'function "attribute"',
        e.pos,
        (a) => this.compile(a.value),
      );
      if (!obj || !attr)
        throw new CompileFault('The "attribute" function takes at least 2 arguments.', e.pos);
      return this.guard((f) => hasAttribute(obj(f), attr(f), 'any'), e.pos) as (f: Frame) => boolean;
    }
    if (e.k === 'func' && e.name === 'block') {
      const [nameFn, templateFn] = this.blockArgs(e.args, e.pos);
      const blocks = this.blocks;
      return this.guard((f) => {
        const name = toStr(nameFn(f));
        if (templateFn) sameTemplate(templateFn(f));
        return blocks.has(name);
      }, e.pos) as (f: Frame) => boolean;
    }
    if (e.k === 'macrocall') {
      // Twig 3.5 compiles `m.f() is defined` to the call itself: its output's truthiness
      const macros = this.macros;
      const name = e.macro;
      const call = this.compile(e);
      return (f) => macros.has(name) && toBool(call(f));
    }
    if (e.k === 'const' || e.k === 'array') return () => true;
    throw new CompileFault('The "defined" test only works with simple variables.', e.pos);
  }

  private macroCall(name: string, args: readonly Arg[], pos: number): ExprFn {
    const positional = args.filter((a) => a.name === undefined).map((a) => this.compile(a.value));
    const named = args
      .filter((a) => a.name !== undefined)
      .map((a) => [a.name!, this.compile(a.value)] as const);
    const macros = this.macros;
    const source = this.source;
    return (f) => {
      try {
        // macros are all compiled before the body runs: look the macro up once per call site
        const m = macros.get(name);
        if (!m) return fail(`Macro "${name}" is not defined in template "${TEMPLATE_NAME}".`);
        const values = new Array<Value>(positional.length);
        for (let i = 0; i < positional.length; i++) values[i] = positional[i]!(f);
        const namedValues = named.length > 0 ? new Map(named.map(([k, v]) => [k, v(f)])) : undefined;
        const result = m(f.st, values, namedValues);
        if (f.st.unplaced !== 0) f.st.place(source, pos);
        return result;
      } catch (err) {
        throw locate(err, source, pos);
      }
    };
  }
}
