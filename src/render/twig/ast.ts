/** Parsed template. `pos` is the source offset used for error positions. */

export interface Arg {
  readonly name: string | undefined;
  readonly value: Expr;
}

export type Expr =
  | {
      readonly k: 'const';
      readonly pos: number;
      readonly value: null | boolean | number | bigint | string;
      /** A number literal written as a float (`1.0`, `2e+3`): PHP keeps it a float. */
      readonly float?: boolean;
    }
  | { readonly k: 'name'; readonly pos: number; readonly name: string }
  | { readonly k: 'concat'; readonly pos: number; readonly parts: readonly Expr[] }
  | {
      readonly k: 'array';
      readonly pos: number;
      readonly items: readonly { readonly key: Expr | undefined; readonly value: Expr }[];
    }
  | {
      readonly k: 'getattr';
      readonly pos: number;
      readonly obj: Expr;
      readonly attr: Expr;
      readonly args: readonly Arg[] | undefined;
      readonly type: 'any' | 'array' | 'method';
    }
  | { readonly k: 'unary'; readonly pos: number; readonly op: string; readonly e: Expr }
  | { readonly k: 'binary'; readonly pos: number; readonly op: string; readonly l: Expr; readonly r: Expr }
  | {
      readonly k: 'cond';
      readonly pos: number;
      readonly c: Expr;
      readonly t: Expr | undefined;
      readonly f: Expr;
    }
  | {
      readonly k: 'filter';
      readonly pos: number;
      readonly name: string;
      readonly e: Expr;
      readonly args: readonly Arg[];
    }
  | { readonly k: 'func'; readonly pos: number; readonly name: string; readonly args: readonly Arg[] }
  | {
      readonly k: 'test';
      readonly pos: number;
      readonly name: string;
      readonly e: Expr;
      readonly args: readonly Arg[];
      readonly not: boolean;
    }
  | { readonly k: 'arrow'; readonly pos: number; readonly params: readonly string[]; readonly body: Expr }
  | { readonly k: 'macrocall'; readonly pos: number; readonly macro: string; readonly args: readonly Arg[] }
  | { readonly k: 'parens'; readonly pos: number; readonly e: Expr };

export interface MacroDef {
  readonly name: string;
  readonly pos: number;
  readonly params: readonly { readonly name: string; readonly def: Expr | undefined }[];
  readonly body: readonly Stmt[];
}

export type Stmt =
  | { readonly k: 'text'; readonly pos: number; readonly text: string }
  | { readonly k: 'print'; readonly pos: number; readonly e: Expr }
  | {
      readonly k: 'if';
      readonly pos: number;
      readonly branches: readonly { readonly cond: Expr; readonly body: readonly Stmt[] }[];
      readonly otherwise: readonly Stmt[] | undefined;
    }
  | {
      readonly k: 'for';
      readonly pos: number;
      readonly keyVar: string | undefined;
      readonly valueVar: string;
      readonly seq: Expr;
      readonly body: readonly Stmt[];
      readonly otherwise: readonly Stmt[] | undefined;
      readonly usesLoop: boolean;
    }
  | {
      readonly k: 'set';
      readonly pos: number;
      readonly names: readonly string[];
      readonly values: readonly Expr[];
    }
  | { readonly k: 'capture'; readonly pos: number; readonly name: string; readonly body: readonly Stmt[] }
  | {
      readonly k: 'with';
      readonly pos: number;
      readonly vars: Expr | undefined;
      readonly only: boolean;
      readonly body: readonly Stmt[];
    }
  | {
      readonly k: 'apply';
      readonly pos: number;
      readonly filters: readonly {
        readonly name: string;
        readonly args: readonly Arg[];
        readonly pos: number;
      }[];
      readonly body: readonly Stmt[];
    }
  | { readonly k: 'do'; readonly pos: number; readonly e: Expr }
  /** `{% block name %}`: renders in place; `block('name')` renders it again. */
  | { readonly k: 'block'; readonly pos: number; readonly name: string; readonly body: readonly Stmt[] }
  | {
      readonly k: 'escape';
      readonly pos: number;
      readonly strategy: string | false;
      readonly body: readonly Stmt[];
    }
  | { readonly k: 'import'; readonly pos: number; readonly alias: string }
  | { readonly k: 'from'; readonly pos: number; readonly names: readonly { name: string; alias: string }[] };

export interface TemplateAst {
  readonly body: readonly Stmt[];
  readonly macros: ReadonlyMap<string, MacroDef>;
}
