import type { Arg, Expr } from './ast.js';
import { CompileFault, nestingFault } from './compile-fault.js';
import { BINARY, UNARY } from './operators.js';
import type { TokenStream } from './token-stream.js';
import { T, TOKEN_NAMES } from './tokens.js';

const NAME_RE = /^[a-zA-Z_\u007f-\uffff][a-zA-Z0-9_\u007f-\uffff]*$/;
const CONSTANTS: Readonly<Record<string, null | boolean>> = {
  true: true,
  TRUE: true,
  false: false,
  FALSE: false,
  none: null,
  NONE: null,
  null: null,
  NULL: null,
};
/** Tests whose single argument may be written without parentheses (`is divisible by 3`). */
const ONE_ARG_TESTS = new Set(['divisible by', 'same as']);
const TWO_WORD_TESTS = new Set(['divisible by', 'same as']);

/** What the expression parser needs to know about the template being parsed. */
export interface ParseScope {
  /** Names that refer to this template's macros (`_self` and `{% import _self as x %}` aliases). */
  readonly macroAliases: Set<string>;
  /** Functions imported with `{% from _self import m as f %}`: function name -> macro name. */
  readonly macroFunctions: Map<string, string>;
  readonly maxDepth: number;
  /** Counts references to `loop`, so for-loops only build it when used. */
  loopRefs: number;
}

/** Twig 3.5's ExpressionParser: precedence climbing, postfix chains, tests and arrows. */
export class ExpressionParser {
  private depth = 0;
  constructor(
    private readonly s: TokenStream,
    private readonly scope: ParseScope,
  ) {}

  private enter(pos: number): void {
    if (++this.depth > this.scope.maxDepth) {
      throw nestingFault('expressions', this.scope.maxDepth, pos);
    }
  }

  parseExpression(precedence = 0, allowArrow = false): Expr {
    this.enter(this.s.current.pos);
    try {
      if (allowArrow) {
        const arrow = this.parseArrow();
        if (arrow) return arrow;
      }
      let expr = this.getPrimary();
      let tok = this.s.current;
      while (tok.type === T.Operator && BINARY[tok.value] && BINARY[tok.value]!.precedence >= precedence) {
        const op = tok.value;
        const def = BINARY[op]!;
        this.s.next();
        if (op === 'is not') expr = this.parseTest(expr, true);
        else if (op === 'is') expr = this.parseTest(expr, false);
        else {
          // Twig 3.5 lets any binary operator's right side be an arrow (`has some v => v > 1`)
          const right = this.parseExpression(def.right ? def.precedence : def.precedence + 1, true);
          expr = { k: 'binary', pos: tok.pos, op, l: expr, r: right };
        }
        tok = this.s.current;
      }
      return precedence === 0 ? this.parseConditional(expr) : expr;
    } finally {
      this.depth--;
    }
  }

  private parseArrow(): Expr | undefined {
    const s = this.s;
    const start = s.current;
    if (start.type === T.Name && s.look(1).type === T.Arrow) {
      s.next();
      s.next();
      return { k: 'arrow', pos: start.pos, params: [start.value], body: this.parseExpression() };
    }
    if (!s.test(T.Punct, '(')) return undefined;
    // ( name, name ) =>
    let i = 1;
    const params: string[] = [];
    for (;;) {
      const t = s.look(i);
      if (t.type === T.Punct && t.value === ')') break;
      if (t.type !== T.Name) return undefined;
      params.push(t.value);
      i++;
      const sep = s.look(i);
      if (sep.type === T.Punct && sep.value === ',') {
        i++;
        continue;
      }
      if (sep.type === T.Punct && sep.value === ')') break;
      return undefined;
    }
    // `() =>` is no arrow in Twig (it needs a name), and a name given twice is PHP's fatal error
    if (params.length === 0 || s.look(i + 1).type !== T.Arrow) return undefined;
    const twice = params.find((p, j) => params.indexOf(p) !== j);
    if (twice !== undefined) throw new CompileFault(`Redefinition of parameter $${twice}.`, start.pos);
    for (let j = 0; j <= i + 1; j++) s.next();
    return { k: 'arrow', pos: start.pos, params, body: this.parseExpression() };
  }

  private parseConditional(expr: Expr): Expr {
    let e = expr;
    while (this.s.nextIf(T.Punct, '?')) {
      const pos = this.s.current.pos;
      if (this.s.nextIf(T.Punct, ':')) {
        e = { k: 'cond', pos, c: e, t: undefined, f: this.parseExpression() };
      } else {
        const t = this.parseExpression();
        const f: Expr = this.s.nextIf(T.Punct, ':')
          ? this.parseExpression()
          : { k: 'const', pos: this.s.current.pos, value: '' };
        e = { k: 'cond', pos, c: e, t, f };
      }
    }
    return e;
  }

  private getPrimary(): Expr {
    const tok = this.s.current;
    if (tok.type === T.Operator && UNARY[tok.value] !== undefined) {
      this.s.next();
      const e = this.parseExpression(UNARY[tok.value]);
      return this.parsePostfix({ k: 'unary', pos: tok.pos, op: tok.value, e });
    }
    if (tok.type === T.Punct && tok.value === '(') {
      this.s.next();
      const e = this.parseExpression();
      this.s.expect(T.Punct, ')', 'An opened parenthesis is not properly closed');
      return this.parsePostfix(e);
    }
    return this.parsePrimaryExpression();
  }

  parsePrimaryExpression(): Expr {
    const s = this.s;
    const tok = s.current;
    let node: Expr;
    switch (tok.type) {
      case T.Name:
        s.next();
        if (Object.hasOwn(CONSTANTS, tok.value)) {
          node = { k: 'const', pos: tok.pos, value: CONSTANTS[tok.value]! };
        } else if (s.test(T.Punct, '(')) {
          node = this.functionNode(tok.value, tok.pos);
        } else {
          if (tok.value === 'loop') this.scope.loopRefs++;
          node = { k: 'name', pos: tok.pos, name: tok.value };
        }
        break;
      case T.Number:
        s.next();
        node = { k: 'const', pos: tok.pos, value: tok.num, float: /[.eE]/.test(tok.value) };
        break;
      case T.String:
      case T.InterpStart:
        node = this.parseString();
        break;
      case T.Operator:
        if (NAME_RE.test(tok.value)) {
          // an operator spelled like a name (e.g. a variable called `matches`) is a name here
          s.next();
          node = { k: 'name', pos: tok.pos, name: tok.value };
          break;
        }
        throw this.unexpected();
      case T.Punct:
        if (tok.value === '[') {
          node = this.parseArray();
          break;
        }
        if (tok.value === '{') {
          node = this.parseHash();
          break;
        }
        throw this.unexpected();
      default:
        throw this.unexpected();
    }
    return this.parsePostfix(node);
  }

  private unexpected(): CompileFault {
    const t = this.s.current;
    if (t.type === T.Eof) return new CompileFault('Unexpected end of template.', t.pos);
    return new CompileFault(`Unexpected token "${TOKEN_NAMES[t.type]}" of value "${t.value}".`, t.pos);
  }

  private functionNode(name: string, pos: number): Expr {
    const args = this.parseArguments(true);
    const macro = this.scope.macroFunctions.get(name);
    if (macro !== undefined) return { k: 'macrocall', pos, macro, args };
    if (name === 'attribute') {
      if (args.length < 2)
        throw new CompileFault('The "attribute" function takes at least 2 arguments.', pos);
      return { k: 'func', pos, name, args };
    }
    return { k: 'func', pos, name, args };
  }

  private parseString(): Expr {
    const s = this.s;
    const pos = s.current.pos;
    const parts: Expr[] = [];
    let canBeString = true;
    for (;;) {
      const t = s.current;
      if (canBeString && t.type === T.String) {
        s.next();
        parts.push({ k: 'const', pos: t.pos, value: t.value });
        canBeString = false;
      } else if (t.type === T.InterpStart) {
        s.next();
        parts.push(this.parseExpression());
        s.expect(T.InterpEnd);
        canBeString = true;
      } else break;
    }
    if (parts.length === 1 && parts[0]!.k === 'const') return parts[0]!;
    return { k: 'concat', pos, parts };
  }

  private parseArray(): Expr {
    const s = this.s;
    const pos = s.expect(T.Punct, '[', 'An array element was expected').pos;
    const items: { key: Expr | undefined; value: Expr }[] = [];
    let first = true;
    while (!s.test(T.Punct, ']')) {
      if (!first) {
        s.expect(T.Punct, ',', 'An array element must be followed by a comma');
        if (s.test(T.Punct, ']')) break;
      }
      first = false;
      items.push({ key: undefined, value: this.parseExpression() });
    }
    s.expect(T.Punct, ']', 'An opened array is not properly closed');
    return { k: 'array', pos, items };
  }

  private parseHash(): Expr {
    const s = this.s;
    const pos = s.expect(T.Punct, '{', 'A hash element was expected').pos;
    const items: { key: Expr | undefined; value: Expr }[] = [];
    let first = true;
    while (!s.test(T.Punct, '}')) {
      if (!first) {
        s.expect(T.Punct, ',', 'A hash value must be followed by a comma');
        if (s.test(T.Punct, '}')) break;
      }
      first = false;
      const t = s.current;
      let key: Expr;
      if (
        t.type === T.Name &&
        s.look(1).type === T.Punct &&
        (s.look(1).value === ',' || s.look(1).value === '}')
      ) {
        s.next();
        if (t.value === 'loop') this.scope.loopRefs++;
        items.push({
          key: { k: 'const', pos: t.pos, value: t.value },
          value: { k: 'name', pos: t.pos, name: t.value },
        });
        continue;
      }
      if (t.type === T.String || t.type === T.Name || (t.type === T.Operator && NAME_RE.test(t.value))) {
        s.next();
        key = { k: 'const', pos: t.pos, value: t.value };
      } else if (t.type === T.Number) {
        s.next();
        key = { k: 'const', pos: t.pos, value: t.num };
      } else if (t.type === T.Punct && t.value === '(') {
        key = this.parseExpression();
      } else {
        throw new CompileFault(
          `A hash key must be a quoted string, a number, a name, or an expression enclosed in parentheses (unexpected token "${TOKEN_NAMES[t.type]}" of value "${t.value}".`,
          t.pos,
        );
      }
      s.expect(T.Punct, ':', 'A hash key must be followed by a colon (:)');
      items.push({ key, value: this.parseExpression() });
    }
    s.expect(T.Punct, '}', 'An opened hash is not properly closed');
    return { k: 'array', pos, items };
  }

  parsePostfix(node: Expr): Expr {
    let n = node;
    for (;;) {
      const t = this.s.current;
      if (t.type !== T.Punct) break;
      if (t.value === '.' || t.value === '[') n = this.parseSubscript(n);
      else if (t.value === '|') n = this.parseFilters(n);
      else break;
    }
    return n;
  }

  private parseSubscript(node: Expr): Expr {
    const s = this.s;
    const dot = s.next();
    if (dot.value === '.') {
      const t = s.next();
      let attr: Expr;
      if (t.type === T.Name || (t.type === T.Operator && NAME_RE.test(t.value))) {
        attr = { k: 'const', pos: t.pos, value: t.value };
      } else if (t.type === T.Number) {
        attr = { k: 'const', pos: t.pos, value: t.num };
      } else {
        throw new CompileFault('Expected name or number.', t.pos);
      }
      if (node.k === 'name' && (node.name === '_self' || this.scope.macroAliases.has(node.name))) {
        if (!s.test(T.Punct, '(')) {
          throw new CompileFault(`Calling a macro needs parentheses: "${node.name}.${t.value}()".`, t.pos);
        }
        // Twig 3.5 parses method-call arguments without named-argument support
        return {
          k: 'macrocall',
          pos: t.pos,
          macro: String(attr.k === 'const' ? attr.value : ''),
          args: this.parseArguments(false),
        };
      }
      if (s.test(T.Punct, '(')) {
        return {
          k: 'getattr',
          pos: dot.pos,
          obj: node,
          attr,
          args: this.parseArguments(true),
          type: 'method',
        };
      }
      return { k: 'getattr', pos: dot.pos, obj: node, attr, args: undefined, type: 'any' };
    }
    // [ expr ] or a slice [start:length]
    let start: Expr | undefined;
    let slice = false;
    if (s.test(T.Punct, ':')) {
      slice = true;
      start = { k: 'const', pos: dot.pos, value: 0 };
    } else {
      start = this.parseExpression();
    }
    if (s.nextIf(T.Punct, ':')) slice = true;
    if (slice) {
      const length: Expr = s.test(T.Punct, ']')
        ? { k: 'const', pos: dot.pos, value: null }
        : this.parseExpression();
      s.expect(T.Punct, ']');
      return {
        k: 'filter',
        pos: dot.pos,
        name: 'slice',
        e: node,
        args: [
          { name: undefined, value: start },
          { name: undefined, value: length },
        ],
      };
    }
    s.expect(T.Punct, ']');
    return { k: 'getattr', pos: dot.pos, obj: node, attr: start, args: undefined, type: 'array' };
  }

  private parseFilters(node: Expr): Expr {
    let n = node;
    while (this.s.nextIf(T.Punct, '|')) {
      const t = this.s.expect(T.Name);
      const args = this.s.test(T.Punct, '(') ? this.parseArguments(true) : [];
      n = { k: 'filter', pos: t.pos, name: t.value, e: n, args };
    }
    return n;
  }

  /** A chain of filters for `{% apply %}`: name(args)|name2... */
  parseFilterChain(): { name: string; args: Arg[]; pos: number }[] {
    const out: { name: string; args: Arg[]; pos: number }[] = [];
    do {
      const t = this.s.expect(T.Name);
      out.push({
        name: t.value,
        pos: t.pos,
        args: this.s.test(T.Punct, '(') ? this.parseArguments(true) : [],
      });
    } while (this.s.nextIf(T.Punct, '|'));
    return out;
  }

  parseArguments(named: boolean): Arg[] {
    const s = this.s;
    const args: Arg[] = [];
    s.expect(T.Punct, '(', 'A list of arguments must begin with an opening parenthesis');
    while (!s.test(T.Punct, ')')) {
      if (args.length > 0) s.expect(T.Punct, ',', 'Arguments must be separated by a comma');
      if (named && s.current.type === T.Name && s.look(1).type === T.Operator && s.look(1).value === '=') {
        const name = s.next().value;
        s.next();
        args.push({ name, value: this.parseExpression(0, true) });
      } else {
        args.push({ name: undefined, value: this.parseExpression(0, true) });
      }
    }
    s.expect(T.Punct, ')', 'A list of arguments must be closed by a parenthesis');
    return args;
  }

  private parseTest(node: Expr, not: boolean): Expr {
    const s = this.s;
    const t = s.expect(T.Name);
    let name = t.value;
    if (s.current.type === T.Name && TWO_WORD_TESTS.has(`${name} ${s.current.value}`)) {
      name = `${name} ${s.current.value}`;
      s.next();
    }
    let args: Arg[] = [];
    if (s.test(T.Punct, '(')) args = this.parseArguments(true);
    else if (ONE_ARG_TESTS.has(name)) args = [{ name: undefined, value: this.parsePrimaryExpression() }];
    return { k: 'test', pos: t.pos, name, e: node, args, not };
  }

  /** Comma-separated target names for set/for. */
  parseAssignmentTargets(): { name: string; pos: number }[] {
    const out: { name: string; pos: number }[] = [];
    do {
      const t = this.s.current;
      // operators spelled like names (matches, in, and...) are variable names here
      if (t.type !== T.Name && !(t.type === T.Operator && NAME_RE.test(t.value))) {
        throw new CompileFault('Only variables can be assigned to.', t.pos);
      }
      if (['true', 'false', 'none', 'null'].includes(t.value.toLowerCase())) {
        throw new CompileFault(`You cannot assign a value to "${t.value}".`, t.pos);
      }
      this.s.next();
      out.push({ name: t.value, pos: t.pos });
    } while (this.s.nextIf(T.Punct, ','));
    return out;
  }

  parseMultiTarget(): Expr[] {
    const out: Expr[] = [];
    do out.push(this.parseExpression());
    while (this.s.nextIf(T.Punct, ','));
    return out;
  }
}
