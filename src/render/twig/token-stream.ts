import { CompileFault } from './compile-fault.js';
import { T, TOKEN_NAMES, type Token } from './tokens.js';

export class TokenStream {
  private i = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  get current(): Token {
    return this.tokens[this.i]!;
  }

  look(n = 1): Token {
    return this.tokens[Math.min(this.i + n, this.tokens.length - 1)]!;
  }

  next(): Token {
    const t = this.tokens[this.i]!;
    if (this.i < this.tokens.length - 1) this.i++;
    return t;
  }

  test(type: T, value?: string): boolean {
    const t = this.current;
    return t.type === type && (value === undefined || t.value === value);
  }

  nextIf(type: T, value?: string): Token | undefined {
    return this.test(type, value) ? this.next() : undefined;
  }

  expect(type: T, value?: string, what?: string): Token {
    const t = this.current;
    if (t.type !== type || (value !== undefined && t.value !== value)) {
      const got = t.type === T.Eof ? 'end of template' : `"${TOKEN_NAMES[t.type]}" of value "${t.value}"`;
      const want = what ?? (value !== undefined ? `${TOKEN_NAMES[type]} "${value}"` : TOKEN_NAMES[type]);
      throw new CompileFault(`Unexpected token ${got} ("${want}" expected).`, t.pos);
    }
    return this.next();
  }
}
