export const T = {
  Text: 0,
  BlockStart: 1,
  VarStart: 2,
  BlockEnd: 3,
  VarEnd: 4,
  Name: 5,
  Number: 6,
  String: 7,
  Operator: 8,
  Punct: 9,
  InterpStart: 10,
  InterpEnd: 11,
  Arrow: 12,
  Eof: 13,
} as const;
export type T = (typeof T)[keyof typeof T];

export interface Token {
  readonly type: T;
  /** Text, name, operator or punctuation; for strings the unescaped value. */
  readonly value: string;
  /** For Number tokens. */
  readonly num: number | bigint;
  /** Offset in the normalized source, for error positions. */
  readonly pos: number;
}

export const TOKEN_NAMES: Record<T, string> = {
  [T.Text]: 'text',
  [T.BlockStart]: 'begin of statement block',
  [T.VarStart]: 'begin of print statement',
  [T.BlockEnd]: 'end of statement block',
  [T.VarEnd]: 'end of print statement',
  [T.Name]: 'name',
  [T.Number]: 'number',
  [T.String]: 'string',
  [T.Operator]: 'operator',
  [T.Punct]: 'punctuation',
  [T.InterpStart]: 'begin of string interpolation',
  [T.InterpEnd]: 'end of string interpolation',
  [T.Arrow]: 'arrow function',
  [T.Eof]: 'end of template',
};
