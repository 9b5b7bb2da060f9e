import type { Expr, MacroDef, Stmt } from './ast.js';
import type { MacroFn } from './compile-expr.js';
import { type ExprCompiler, TEMPLATE_NAME } from './compile-expr.js';
import { escapeValue } from './filters/escape-filters.js';
import { type ExprFn, type Frame, Slots, type StmtFn, Vars } from './frame.js';
import { locate } from './locate.js';
import { PLATFORM_GLOBALS } from './platform-needs.js';
import { castStr, toBool } from './runtime/convert.js';
import { fail } from './runtime/fault.js';
import { LoopArray } from './runtime/loop-array.js';
import { markup } from './runtime/markup.js';
import { ArrayBuilder, type Key, PhpArray } from './runtime/php-array.js';
import { LimitFault, macroDepthText, type RenderState } from './runtime/state.js';
import type { Value } from './runtime/value.js';
import { isSafeFor, PRE_ESCAPE_HTML } from './safety.js';

type OutputStmt = Extract<Stmt, { k: 'text' | 'print' }>;

function seq(fns: StmtFn[]): StmtFn {
  if (fns.length === 0) return () => {};
  if (fns.length === 1) return fns[0]!;
  if (fns.length === 2) {
    const [a, b] = fns as [StmtFn, StmtFn];
    return (f) => {
      a(f);
      b(f);
    };
  }
  return (f) => {
    for (let i = 0; i < fns.length; i++) fns[i]!(f);
  };
}

/** Captures what `body` writes (set blocks, apply, macros). */
export function capture(f: Frame, body: StmtFn): string {
  const st = f.st;
  const saved = st.out;
  st.out = '';
  try {
    body(f);
    return st.out;
  } finally {
    st.out = saved;
  }
}

/** Names a macro's scope holds beside its parameters. */
const SCOPE_NAMES: ReadonlySet<string> = new Set(['varargs', '_context', ...PLATFORM_GLOBALS]);

/**
 * Whether statements can see a macro scope's globals or varargs: they name one (or `_context`),
 * or reach the whole scope another way (`loop.parent`, `block()`, which renders in a copy of it).
 */
function seesWholeScope(node: unknown): boolean {
  if (typeof node !== 'object' || node === null) return false;
  if (Array.isArray(node)) return node.some(seesWholeScope);
  const n = node as { k?: unknown; name?: unknown; usesLoop?: unknown };
  if (n.k === 'name' && SCOPE_NAMES.has(n.name as string)) return true;
  if (n.k === 'func' && n.name === 'block') return true;
  if (n.k === 'for' && n.usesLoop === true) return true;
  for (const v of Object.values(node)) if (seesWholeScope(v)) return true;
  return false;
}

/**
 * Names statements set in their own scope: `set`, set blocks and loop targets, through `if`,
 * `for`, `apply` and `escape` bodies; not inside `with` or `block`, which run in a copy.
 */
function assignedNames(stmts: readonly Stmt[]): string[] {
  const out: string[] = [];
  const walk = (list: readonly Stmt[]): void => {
    for (const s of list) {
      switch (s.k) {
        case 'set':
          out.push(...s.names);
          break;
        case 'capture':
          out.push(s.name);
          walk(s.body);
          break;
        case 'if':
          for (const b of s.branches) walk(b.body);
          if (s.otherwise) walk(s.otherwise);
          break;
        case 'for':
          if (s.keyVar !== undefined) out.push(s.keyVar);
          out.push(s.valueVar, 'loop');
          walk(s.body);
          if (s.otherwise) walk(s.otherwise);
          break;
        case 'apply':
        case 'escape':
          walk(s.body);
          break;
        default:
          break;
      }
    }
  };
  walk(stmts);
  return out;
}

export class StmtCompiler {
  constructor(private readonly x: ExprCompiler) {}

  private guard(fn: StmtFn, pos: number): StmtFn {
    const source = this.x.source;
    return (f) => {
      try {
        fn(f);
        if (f.st.unplaced !== 0) f.st.place(source, pos);
      } catch (err) {
        throw locate(err, source, pos);
      }
    };
  }

  private guardExpr(fn: ExprFn, pos: number): ExprFn {
    const source = this.x.source;
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

  compileList(stmts: readonly Stmt[], esc: string | false): StmtFn {
    const fns: StmtFn[] = [];
    for (let i = 0; i < stmts.length; ) {
      // a run of text and prints (most of a card) becomes one closure writing one string
      let j = i;
      while (j < stmts.length && (stmts[j]!.k === 'text' || stmts[j]!.k === 'print')) j++;
      if (j - i >= 2) {
        fns.push(this.outputRun(stmts.slice(i, j) as OutputStmt[], esc));
        i = j;
      } else {
        fns.push(this.compile(stmts[i]!, esc));
        i++;
      }
    }
    return seq(fns);
  }

  private printExpr(s: Extract<Stmt, { k: 'print' }>, esc: string | false): ExprFn {
    if (esc === false || isSafeFor(s.e, esc)) return this.x.compile(s.e);
    return this.unwrapped(s.e, esc) ?? this.escaped(s.e, esc);
  }

  private escaped(e: Expr, strategy: string): ExprFn {
    const fn = this.x.compile(e);
    return (f) => escapeValue(fn(f), strategy, true);
  }

  /**
   * Twig's EscaperNodeVisitor prints a conditional (`?:`, `??` too) whose two branches differ in
   * safety branch by branch, each escaped unless it is safe, and so on into such conditionals
   * within; any other conditional is escaped whole. Undefined: not such a conditional.
   */
  private unwrapped(e: Expr, strategy: string): ExprFn | undefined {
    const branch = (b: Expr): ExprFn =>
      isSafeFor(b, strategy) ? this.x.compile(b) : (this.unwrapped(b, strategy) ?? this.escaped(b, strategy));
    if (e.k === 'cond') {
      // `a ?: b` is `a ? a : b`: a true `a` is evaluated again, as PHP does
      const then = e.t ?? e.c;
      if (isSafeFor(then, strategy) === isSafeFor(e.f, strategy)) return undefined;
      const c = this.x.compile(e.c);
      const t = branch(then);
      const fl = branch(e.f);
      return (f) => (toBool(c(f)) ? t(f) : fl(f));
    }
    // `a ?? b` tests `a is defined and a is not null`; a function or macro call on the left
    // (whose defined test differs) is escaped whole
    if (e.k === 'binary' && e.op === '??' && e.l.k !== 'func' && e.l.k !== 'macrocall') {
      if (isSafeFor(e.l, strategy) === isSafeFor(e.r, strategy)) return undefined;
      const test = this.x.compile(e.l);
      const l = branch(e.l);
      const r = branch(e.r);
      return (f) => (test(f) === null ? r(f) : l(f));
    }
    return undefined;
  }

  /**
   * Texts and prints in a row: the pieces are joined and written once (or whenever they pass
   * 64 KiB, so the output bound applies as it did per write); each print keeps its position.
   */
  private outputRun(stmts: readonly OutputStmt[], esc: string | false): StmtFn {
    const parts: (string | ExprFn)[] = [];
    const positions: number[] = [];
    for (const s of stmts) {
      if (s.k === 'text') {
        const last = parts.length - 1;
        if (last >= 0 && typeof parts[last] === 'string') parts[last] += s.text;
        else {
          parts.push(s.text);
          positions.push(s.pos);
        }
      } else {
        parts.push(this.printExpr(s, esc));
        positions.push(s.pos);
      }
    }
    const source = this.x.source;
    return (f) => {
      let out = '';
      let i = 0;
      try {
        for (; i < parts.length; i++) {
          const p = parts[i]!;
          if (typeof p === 'string') out += p;
          else {
            const v = p(f);
            out += typeof v === 'string' ? v : castStr(v);
            if (f.st.unplaced !== 0) f.st.place(source, positions[i]!);
            // long pieces go out at once, so the output bound stops a render as early as before
            if (out.length > 65536) {
              f.st.write(out);
              out = '';
            }
          }
        }
      } catch (err) {
        throw locate(err, source, positions[i]!);
      }
      f.st.write(out);
    };
  }

  private compile(s: Stmt, esc: string | false): StmtFn {
    switch (s.k) {
      case 'text': {
        const text = s.text;
        return (f) => f.st.write(text);
      }
      case 'print': {
        const fn = this.printExpr(s, esc);
        const source = this.x.source;
        const pos = s.pos;
        return (f) => {
          try {
            f.st.write(castStr(fn(f)));
            if (f.st.unplaced !== 0) f.st.place(source, pos);
          } catch (err) {
            throw locate(err, source, pos);
          }
        };
      }
      case 'if': {
        const branches = s.branches.map((b) => ({
          cond: this.guardExpr(this.x.compile(b.cond), b.cond.pos),
          body: this.compileList(b.body, esc),
        }));
        const otherwise = s.otherwise ? this.compileList(s.otherwise, esc) : undefined;
        if (branches.length === 1) {
          const { cond, body } = branches[0]!;
          if (!otherwise) return (f) => (toBool(cond(f)) ? body(f) : undefined);
          return (f) => (toBool(cond(f)) ? body(f) : otherwise(f));
        }
        return (f) => {
          for (const b of branches) {
            if (toBool(b.cond(f))) return b.body(f);
          }
          otherwise?.(f);
        };
      }
      case 'for':
        return this.forLoop(s, esc);
      case 'set': {
        const values = s.values.map((v) => this.x.compile(v));
        const names = s.names;
        const slots = names.map((n) => this.x.slots.of(n));
        if (names.length === 1) {
          const slot = slots[0]!;
          const v = values[0]!;
          const source = this.x.source;
          const pos = s.pos;
          return (f) => {
            try {
              f.vars.set(slot, v(f));
              if (f.st.unplaced !== 0) f.st.place(source, pos);
            } catch (err) {
              throw locate(err, source, pos);
            }
          };
        }
        return this.guard((f) => {
          const vals = values.map((v) => v(f));
          for (let i = 0; i < slots.length; i++) f.vars.set(slots[i]!, vals[i]!);
        }, s.pos);
      }
      case 'capture': {
        const body = this.compileList(s.body, esc);
        const slot = this.x.slots.of(s.name);
        return (f) => {
          f.vars.set(slot, markup(capture(f, body)));
        };
      }
      case 'with': {
        const vars = s.vars ? this.x.compile(s.vars) : undefined;
        const only = s.only;
        const body = this.compileList(s.body, esc);
        const own = this.x.slots;
        return this.guard((f) => {
          const scope = only ? Vars.fromMap(own, f.st.globals) : f.vars.copy();
          if (vars) {
            const v = vars(f);
            if (!(v instanceof PhpArray)) fail('Variables passed to a "with" tag must be a hash.');
            v.forEach((val, k) => {
              scope.setName(String(k), val);
            });
          }
          body({ vars: scope, st: f.st });
        }, s.pos);
      }
      case 'apply': {
        const body = this.compileList(s.body, esc);
        let fn: ExprFn = (f) => capture(f, body);
        // the captured body is safe (a Markup in PHP); each filter's output is safe only if the filter says so
        let safe = true;
        for (const flt of s.filters) {
          fn = this.x.filter(flt.name, fn, flt.args, flt.pos, safe);
          safe =
            flt.name === 'raw' || PRE_ESCAPE_HTML.has(flt.name) || flt.name === 'escape' || flt.name === 'e';
        }
        const out = fn;
        return this.guard((f) => f.st.write(castStr(out(f))), s.pos);
      }
      case 'do': {
        const e = this.x.compile(s.e);
        return this.guard((f) => {
          e(f);
        }, s.pos);
      }
      case 'escape':
        return this.compileList(s.body, s.strategy);
      case 'block': {
        const body = this.compileList(s.body, esc);
        // a block compiled in a macro (or called from one) reads another scope's slots: by name
        const own = this.x.slots;
        const block = (f: Frame) =>
          body({
            vars: f.vars.slots === own ? f.vars.copy() : Vars.fromMap(own, f.vars.toMap()),
            st: f.st,
          });
        this.x.blocks.set(s.name, block);
        return block;
      }
      case 'import':
      case 'from':
        return () => {};
    }
  }

  private forLoop(s: Extract<Stmt, { k: 'for' }>, esc: string | false): StmtFn {
    const seqFn = this.guardExpr(this.x.compile(s.seq), s.seq.pos);
    const body = this.compileList(s.body, esc);
    const otherwise = s.otherwise ? this.compileList(s.otherwise, esc) : undefined;
    const { keyVar, valueVar, usesLoop } = s;
    const slots = this.x.slots;
    const keySlot = keyVar === undefined ? -1 : slots.of(keyVar);
    const valueSlot = slots.of(valueVar);
    const loopSlot = slots.of('loop');
    // Twig: variables created in the loop vanish; outer ones keep changes; the loop's targets
    // (key, value, loop) get their outer values back. What the loop can create is known here:
    // its targets and the names its statements set in this scope.
    const targets = keySlot < 0 ? [valueSlot, loopSlot] : [keySlot, valueSlot, loopSlot];
    const made = new Set<number>(targets);
    for (const name of assignedNames([...s.body, ...(s.otherwise ?? [])])) made.add(slots.of(name));
    const creatable = [...made];
    return (f) => {
      const seqV = seqFn(f);
      const vars = f.vars;
      const values0 = vars.values;
      const absent: number[] = [];
      for (const i of creatable) if (values0[i] === undefined) absent.push(i);
      const oldKey = keySlot < 0 ? undefined : values0[keySlot];
      const oldValue = values0[valueSlot];
      const oldLoop = values0[loopSlot];
      let keys: Key[] | undefined;
      let values: Value[] = [];
      if (seqV instanceof PhpArray) {
        // each iteration is charged a step below, so the keys are built only when used
        if (keySlot >= 0) keys = seqV.keys();
        values = seqV.values();
      }
      const n = values.length;
      const st = f.st;
      const parent = usesLoop ? PhpArray.fromMap(vars.toMap()) : null;
      for (let i = 0; i < n; i++) {
        st.step();
        if (keys !== undefined) vars.set(keySlot, keys[i]!);
        vars.set(valueSlot, values[i]!);
        if (parent) vars.set(loopSlot, new LoopArray(parent, i, n));
        body(f);
      }
      if (n === 0 && otherwise) {
        if (parent) vars.set(loopSlot, new LoopArray(parent, 0, 0));
        otherwise(f);
      }
      if (oldKey !== undefined) vars.set(keySlot, oldKey);
      if (oldValue !== undefined) vars.set(valueSlot, oldValue);
      if (oldLoop !== undefined) vars.set(loopSlot, oldLoop);
      vars.deleteAll(absent);
    };
  }

  compileMacro(def: MacroDef): MacroFn {
    // a macro's scope is its own (parameters, its sets, maybe the globals): so are its slots
    const outer = this.x.slots;
    const slots = new Slots();
    this.x.slots = slots;
    try {
      return this.macroFn(def, slots);
    } finally {
      this.x.slots = outer;
    }
  }

  private macroFn(def: MacroDef, slots: Slots): MacroFn {
    const body = this.compileList(def.body, false);
    // globals and varargs go into the scope only when the body can see them (a smaller scope
    // is a cheaper call)
    const full = seesWholeScope(def.body) || seesWholeScope(def.params);
    const params = def.params.map((p) => ({
      name: p.name,
      slot: slots.of(p.name),
      def: p.def ? this.x.compile(p.def) : undefined,
    }));
    const varargs = slots.of('varargs');
    const source = this.x.source;
    return (st: RenderState, args, named) => {
      if (st.macroDepth >= st.limits.maxMacroDepth) {
        throw locate(
          new LimitFault('maxMacroDepth', macroDepthText(st.limits.maxMacroDepth)),
          source,
          def.pos,
        );
      }
      st.step();
      // a Map copied from a Map is cloned whole (V8's fast path), not entry by entry
      const vars = full ? Vars.fromMap(slots, st.globals) : Vars.empty(slots);
      const f: Frame = { vars, st };
      for (let i = 0; i < params.length; i++) {
        const p = params[i]!;
        let v: Value | undefined = i < args.length ? args[i] : named?.get(p.name);
        if (v === undefined) v = p.def ? p.def(f) : null;
        vars.set(p.slot, v);
      }
      if (!full) {
        // nothing in the body reads varargs
      } else if (args.length > params.length) {
        const extra = new ArrayBuilder();
        for (let i = params.length; i < args.length; i++) extra.push(args[i]!);
        vars.set(varargs, extra.build());
      } else vars.set(varargs, PhpArray.EMPTY);
      st.macroDepth++;
      try {
        return markup(capture(f, body));
      } finally {
        st.macroDepth--;
      }
    };
  }
}

export { TEMPLATE_NAME };
