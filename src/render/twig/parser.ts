import type { Expr, MacroDef, Stmt, TemplateAst } from './ast.js';
import { CompileFault, nestingFault } from './compile-fault.js';
import { ExpressionParser, type ParseScope } from './expression-parser.js';
import { TokenStream } from './token-stream.js';
import { T, type Token } from './tokens.js';

/** Tags that need files or a template loader; valid Twig that Herald refuses. */
const UNAVAILABLE_TAGS: Readonly<Record<string, string>> = {
  include: 'the "include" tag (no template files)',
  embed: 'the "embed" tag (no template files)',
  extends: 'the "extends" tag (no template files)',
  use: 'the "use" tag (no template files)',
  sandbox: 'the "sandbox" tag (no template files)',
};

type EndTest = (name: string) => boolean;

/** Parses tokens into a TemplateAst (Twig 3.5's Parser plus its core token parsers). */
export class Parser {
  private readonly s: TokenStream;
  private readonly ep: ExpressionParser;
  private readonly scope: ParseScope;
  private readonly macros = new Map<string, MacroDef>();
  /** Block names already defined, with the line of the definition (Twig refuses a second). */
  private readonly blockNames = new Set<string>();
  private depth = 0;

  constructor(tokens: readonly Token[], maxDepth: number) {
    this.s = new TokenStream(tokens);
    this.scope = { macroAliases: new Set(), macroFunctions: new Map(), maxDepth, loopRefs: 0 };
    this.ep = new ExpressionParser(this.s, this.scope);
  }

  parse(): TemplateAst {
    const body = this.subparse(undefined);
    return { body, macros: this.macros };
  }

  private expr(): Expr {
    return this.ep.parseExpression();
  }

  private endBlock(): void {
    this.s.expect(T.BlockEnd);
  }

  /** Statements until a block whose tag name satisfies `end` (left as the current token). */
  private subparse(end: EndTest | undefined): Stmt[] {
    const s = this.s;
    if (++this.depth > this.scope.maxDepth) {
      throw nestingFault('tags', this.scope.maxDepth, s.current.pos);
    }
    const out: Stmt[] = [];
    for (;;) {
      const t = s.current;
      switch (t.type) {
        case T.Text:
          s.next();
          out.push({ k: 'text', pos: t.pos, text: t.value });
          break;
        case T.VarStart: {
          s.next();
          const e = this.expr();
          s.expect(T.VarEnd);
          out.push({ k: 'print', pos: t.pos, e });
          break;
        }
        case T.BlockStart: {
          s.next();
          const tag = s.current;
          if (tag.type !== T.Name) {
            throw new CompileFault('A block must start with a tag name.', tag.pos);
          }
          if (end?.(tag.value)) {
            this.depth--;
            return out;
          }
          s.next();
          const stmt = this.parseTag(tag);
          if (stmt) out.push(stmt);
          break;
        }
        case T.Eof:
          if (end) throw new CompileFault('Unexpected end of template.', t.pos);
          this.depth--;
          return out;
        default:
          throw new CompileFault('Lexer or parser ended up in unsupported state.', t.pos);
      }
    }
  }

  private parseTag(tag: Token): Stmt | undefined {
    const name = tag.value;
    const pos = tag.pos;
    switch (name) {
      case 'if':
        return this.parseIf(pos);
      case 'for':
        return this.parseFor(pos);
      case 'set':
        return this.parseSet(pos);
      case 'with':
        return this.parseWith(pos);
      case 'apply':
        return this.parseApply(pos);
      case 'macro':
        this.parseMacro(pos);
        return undefined;
      case 'do': {
        const e = this.expr();
        this.endBlock();
        return { k: 'do', pos, e };
      }
      case 'import':
        return this.parseImport(pos);
      case 'from':
        return this.parseFrom(pos);
      case 'autoescape':
        return this.parseAutoescape(pos);
      case 'block':
        return this.parseBlock(pos);
      case 'flush':
        this.endBlock();
        return undefined;
      case 'deprecated':
        this.expr();
        this.endBlock();
        return undefined;
      default: {
        const unavailable = UNAVAILABLE_TAGS[name];
        if (unavailable) throw new CompileFault(unavailable, pos, { unavailable: true });
        throw new CompileFault(`Unknown "${name}" tag.`, pos);
      }
    }
  }

  private parseIf(pos: number): Stmt {
    const branches: { cond: Expr; body: Stmt[] }[] = [];
    let cond = this.expr();
    this.endBlock();
    let otherwise: Stmt[] | undefined;
    for (;;) {
      const body = this.subparse((n) => n === 'elseif' || n === 'else' || n === 'endif');
      branches.push({ cond, body });
      const t = this.s.next().value;
      if (t === 'else') {
        this.endBlock();
        otherwise = this.subparse((n) => n === 'endif');
        this.s.next();
        break;
      }
      if (t === 'elseif') {
        cond = this.expr();
        this.endBlock();
        continue;
      }
      break;
    }
    this.endBlock();
    return { k: 'if', pos, branches, otherwise };
  }

  private parseFor(pos: number): Stmt {
    const targets = this.ep.parseAssignmentTargets();
    this.s.expect(T.Operator, 'in');
    const seq = this.expr();
    this.endBlock();
    const before = this.scope.loopRefs;
    const body = this.subparse((n) => n === 'else' || n === 'endfor');
    let otherwise: Stmt[] | undefined;
    if (this.s.next().value === 'else') {
      this.endBlock();
      otherwise = this.subparse((n) => n === 'endfor');
      this.s.next();
    }
    // `loop` in the else clause is this loop's too (index 1, length 0), as in Twig.
    const usesLoop = this.scope.loopRefs !== before;
    this.endBlock();
    const keyVar = targets.length > 1 ? targets[0]!.name : undefined;
    const valueVar = targets.length > 1 ? targets[1]!.name : targets[0]!.name;
    return { k: 'for', pos, keyVar, valueVar, seq, body, otherwise, usesLoop };
  }

  private parseSet(pos: number): Stmt {
    const names = this.ep.parseAssignmentTargets();
    if (this.s.nextIf(T.Operator, '=')) {
      const values = this.ep.parseMultiTarget();
      this.endBlock();
      if (names.length !== values.length) {
        throw new CompileFault(
          'When using set, you must have the same number of variables and assignments.',
          pos,
        );
      }
      return { k: 'set', pos, names: names.map((n) => n.name), values };
    }
    if (names.length > 1) {
      throw new CompileFault('When using set with a block, you cannot have a multi-target.', pos);
    }
    this.endBlock();
    const body = this.subparse((n) => n === 'endset');
    this.s.next();
    this.endBlock();
    return { k: 'capture', pos, name: names[0]!.name, body };
  }

  private parseWith(pos: number): Stmt {
    let vars: Expr | undefined;
    let only = false;
    if (!this.s.test(T.BlockEnd)) {
      if (!this.s.test(T.Name, 'only')) vars = this.expr();
      if (this.s.nextIf(T.Name, 'only')) only = true;
    }
    this.endBlock();
    const body = this.subparse((n) => n === 'endwith');
    this.s.next();
    this.endBlock();
    return { k: 'with', pos, vars, only, body };
  }

  private parseApply(pos: number): Stmt {
    const filters = this.ep.parseFilterChain();
    this.endBlock();
    const body = this.subparse((n) => n === 'endapply');
    this.s.next();
    this.endBlock();
    return { k: 'apply', pos, filters, body };
  }

  private parseMacro(pos: number): void {
    const name = this.s.expect(T.Name).value;
    const params: { name: string; def: Expr | undefined }[] = [];
    this.s.expect(T.Punct, '(', 'A list of arguments must begin with an opening parenthesis');
    while (!this.s.test(T.Punct, ')')) {
      if (params.length > 0) this.s.expect(T.Punct, ',', 'Arguments must be separated by a comma');
      const p = this.s.expect(T.Name);
      let def: Expr | undefined;
      if (this.s.nextIf(T.Operator, '=')) {
        def = this.ep.parsePrimaryExpression();
        if (!isConstant(def)) {
          throw new CompileFault(
            'A default value for an argument must be a constant (a boolean, a string, a number, or an array).',
            def.pos,
          );
        }
      }
      params.push({ name: p.value, def });
    }
    this.s.expect(T.Punct, ')');
    this.endBlock();
    const body = this.subparse((n) => n === 'endmacro');
    this.s.next();
    const endName = this.s.nextIf(T.Name);
    if (endName && endName.value !== name) {
      throw new CompileFault(
        `Expected endmacro for macro "${name}" (but "${endName.value}" given).`,
        endName.pos,
      );
    }
    this.endBlock();
    // like Twig 3.5, a later definition with the same name replaces the earlier one
    this.macros.set(name, { name, pos, params, body });
  }

  private expectSelf(): void {
    const t = this.s.current;
    if (t.type === T.Name && t.value === '_self') {
      this.s.next();
      return;
    }
    throw new CompileFault('importing macros from other templates (no template files)', t.pos, {
      unavailable: true,
    });
  }

  private parseImport(pos: number): Stmt {
    this.expectSelf();
    this.s.expect(T.Name, 'as');
    const alias = this.s.expect(T.Name).value;
    this.endBlock();
    this.scope.macroAliases.add(alias);
    return { k: 'import', pos, alias };
  }

  private parseFrom(pos: number): Stmt {
    this.expectSelf();
    this.s.expect(T.Name, 'import');
    const names: { name: string; alias: string }[] = [];
    do {
      const name = this.s.expect(T.Name).value;
      const alias = this.s.nextIf(T.Name, 'as') ? this.s.expect(T.Name).value : name;
      names.push({ name, alias });
      this.scope.macroFunctions.set(alias, name);
    } while (this.s.nextIf(T.Punct, ','));
    this.endBlock();
    return { k: 'from', pos, names };
  }

  private parseAutoescape(pos: number): Stmt {
    let strategy: string | false = 'html';
    if (!this.s.test(T.BlockEnd)) {
      const e = this.expr();
      if (e.k !== 'const' || (typeof e.value !== 'string' && e.value !== false)) {
        throw new CompileFault('An escaping strategy must be a string or false.', e.pos);
      }
      strategy = e.value;
    }
    this.endBlock();
    const body = this.subparse((n) => n === 'endautoescape');
    this.s.next();
    this.endBlock();
    return { k: 'escape', pos, strategy, body };
  }

  /**
   * Without inheritance a block renders in place, in a copy of the scope; its name is
   * template-wide, for block().
   */
  private parseBlock(pos: number): Stmt {
    const nameTok = this.s.expect(T.Name);
    const name = nameTok.value;
    if (this.blockNames.has(name)) {
      throw new CompileFault(`The block '${name}' has already been defined.`, nameTok.pos);
    }
    this.blockNames.add(name);
    if (this.s.nextIf(T.BlockEnd)) {
      const body = this.subparse((n) => n === 'endblock');
      this.s.next();
      this.s.nextIf(T.Name);
      this.endBlock();
      return { k: 'block', pos, name, body };
    }
    const e = this.expr();
    this.endBlock();
    return { k: 'block', pos, name, body: [{ k: 'print', pos, e }] };
  }
}

function isConstant(e: Expr): boolean {
  if (e.k === 'const') return true;
  if (e.k === 'unary' && e.op === '-' && e.e.k === 'const') return true;
  if (e.k === 'array')
    return e.items.every((i) => (i.key === undefined || isConstant(i.key)) && isConstant(i.value));
  return false;
}
