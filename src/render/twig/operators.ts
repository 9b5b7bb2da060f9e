/** Twig 3.5 operator table (CoreExtension::getOperators): precedence and associativity. */
export const UNARY: Readonly<Record<string, number>> = { not: 50, '-': 500, '+': 500 };

export interface BinaryDef {
  readonly precedence: number;
  readonly right: boolean;
}

const b = (precedence: number, right = false): BinaryDef => ({ precedence, right });

export const BINARY: Readonly<Record<string, BinaryDef>> = {
  or: b(10),
  and: b(15),
  'b-or': b(16),
  'b-xor': b(17),
  'b-and': b(18),
  '==': b(20),
  '!=': b(20),
  '<=>': b(20),
  '<': b(20),
  '>': b(20),
  '>=': b(20),
  '<=': b(20),
  'not in': b(20),
  in: b(20),
  matches: b(20),
  'starts with': b(20),
  'ends with': b(20),
  'has some': b(20),
  'has every': b(20),
  '..': b(25),
  '+': b(30),
  '-': b(30),
  '~': b(40),
  '*': b(60),
  '/': b(60),
  '//': b(60),
  '%': b(60),
  is: b(100),
  'is not': b(100),
  '**': b(200, true),
  '??': b(300, true),
};

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** The lexer's operator regex, built like Twig's getOperatorRegex (longest first). */
export function operatorRegex(): RegExp {
  const ops = ['=', ...Object.keys(UNARY), ...Object.keys(BINARY)];
  const unique = [...new Set(ops)].sort((x, y) => y.length - x.length);
  const parts = unique.map((op) => {
    let r = escapeRe(op).replace(/ /g, '[ \\t\\n\\v\\f\\r]+');
    if (/[a-zA-Z]$/.test(op)) r += '(?=[\\t\\n\\v\\f\\r ()\\[{])';
    if (/^[a-zA-Z]/.test(op)) r = '(?<![.|])' + r;
    return r;
  });
  return new RegExp(parts.join('|'), 'y');
}
