import { CompileFault } from './compile-fault.js';
import { operatorRegex } from './operators.js';
import { INT64_MAX } from './runtime/int64.js';
import { stripcslashes } from './strip-slashes.js';
import { T, type Token } from './tokens.js';

// PCRE's \s without the u flag, and the "line" whitespace that `~` trims.
const S = '[ \\t\\n\\v\\f\\r]';
const LINE_WS = '[ \\t\\0\\v]';
const TOKEN_START = /\{([{%#])([-~])?/g;
const LEX_VAR = new RegExp(`${S}*(?:-\\}\\}${S}*|~\\}\\}${LINE_WS}*|\\}\\})`, 'y');
const LEX_BLOCK = new RegExp(`${S}*(?:-%\\}${S}*\\n?|~%\\}${LINE_WS}*|%\\}\\n?)`, 'y');
const LEX_COMMENT = new RegExp(`(?:-#\\}${S}*\\n?|~#\\}${LINE_WS}*|#\\}\\n?)`, 'g');
const LEX_BLOCK_RAW = new RegExp(`${S}*verbatim${S}*(?:-%\\}${S}*|~%\\}${LINE_WS}*|%\\})`, 'y');
const LEX_RAW_DATA = new RegExp(`\\{%([-~])?${S}*endverbatim${S}*(?:-%\\}${S}*|~%\\}${LINE_WS}*|%\\})`, 'g');
const LEX_BLOCK_LINE = new RegExp(`${S}*line${S}+(\\d+)${S}*%\\}`, 'y');
const WHITESPACE = new RegExp(`${S}+`, 'y');
const NAME = /[a-zA-Z_\u007f-\uffff][a-zA-Z0-9_\u007f-\uffff]*/y;
const NUMBER = /[0-9]+(?:\.[0-9]+)?(?:[Ee][+-][0-9]+)?/y;
const STRING = /"([^#"\\]*(?:\\.[^#"\\]*)*)"|'([^'\\]*(?:\\.[^'\\]*)*)'/sy;
const DQ_PART = /[^#"\\]*(?:(?:\\.|#(?!\{))[^#"\\]*)*/sy;
const INTERP_START = new RegExp(`#\\{${S}*`, 'y');
const INTERP_END = new RegExp(`${S}*\\}`, 'y');
const OPERATOR = operatorRegex();
const PUNCTUATION = '()[]{}?:.,|';

/**
 * A number literal's value as Twig's lexer reads it: digits only and `<= PHP_INT_MAX` (a PHP
 * string-to-int comparison, so up to 2^63 as a double) is an int, clamped to PHP_INT_MAX;
 * anything else is a float.
 */
function numberLiteral(text: string): number | bigint {
  const n = Number(text);
  if (Number.isSafeInteger(n) || n > 2 ** 63 || !/^[0-9]+$/.test(text)) return n;
  const b = BigInt(text);
  return b > INT64_MAX ? INT64_MAX : b;
}

enum State {
  Data,
  Block,
  Var,
  String,
  Interpolation,
}

// Loops, not /[...]+$/: that regex is quadratic on long runs of spaces.
function rtrimChars(s: string, chars: string): string {
  let end = s.length;
  while (end > 0 && chars.includes(s[end - 1]!)) end--;
  return end === s.length ? s : s.slice(0, end);
}
const rtrimAll = (s: string): string => rtrimChars(s, ' \t\n\r\0\v');
const rtrimLine = (s: string): string => rtrimChars(s, ' \t\0\v');

function match(re: RegExp, code: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(code);
}

/** Twig 3.5's lexer, state for state. Works on the line-ending-normalized source. */
export function tokenize(code: string): Token[] {
  const tokens: Token[] = [];
  const states: State[] = [];
  const brackets: { ch: string; pos: number }[] = [];
  let state = State.Data as State;
  let cursor = 0;
  let blockStart = 0;
  const end = code.length;

  const push = (type: T, value = '', pos = cursor, num: number | bigint = 0): void => {
    if (type === T.Text && value === '') return;
    tokens.push({ type, value, num, pos });
  };
  const pushState = (s: State): void => {
    states.push(state);
    state = s;
  };
  const popState = (): void => {
    state = states.pop() ?? State.Data;
  };

  const lexData = (): void => {
    TOKEN_START.lastIndex = cursor;
    const m = TOKEN_START.exec(code);
    if (!m) {
      push(T.Text, code.slice(cursor));
      cursor = end;
      return;
    }
    let text = code.slice(cursor, m.index);
    if (m[2] === '-') text = rtrimAll(text);
    else if (m[2] === '~') text = rtrimLine(text);
    push(T.Text, text);
    const tagPos = m.index;
    cursor = m.index + m[0].length;
    if (m[1] === '#') {
      LEX_COMMENT.lastIndex = cursor;
      const c = LEX_COMMENT.exec(code);
      if (!c) throw new CompileFault('Unclosed comment.', tagPos);
      cursor = c.index + c[0].length;
    } else if (m[1] === '%') {
      const raw = match(LEX_BLOCK_RAW, code, cursor);
      if (raw) {
        cursor += raw[0].length;
        LEX_RAW_DATA.lastIndex = cursor;
        const r = LEX_RAW_DATA.exec(code);
        if (!r) throw new CompileFault('Unexpected end of file: Unclosed "verbatim" block.', tagPos);
        let body = code.slice(cursor, r.index);
        if (r[1] === '-') body = rtrimAll(body);
        else if (r[1] === '~') body = rtrimLine(body);
        push(T.Text, body, cursor);
        cursor = r.index + r[0].length;
        return;
      }
      const line = match(LEX_BLOCK_LINE, code, cursor);
      if (line) {
        cursor += line[0].length;
        return;
      }
      push(T.BlockStart, '', tagPos);
      pushState(State.Block);
      blockStart = tagPos;
    } else {
      push(T.VarStart, '', tagPos);
      pushState(State.Var);
      blockStart = tagPos;
    }
  };

  const lexExpression = (): void => {
    const ws = match(WHITESPACE, code, cursor);
    if (ws) {
      cursor += ws[0].length;
      if (cursor >= end) {
        throw new CompileFault(`Unclosed "${state === State.Block ? 'block' : 'variable'}".`, blockStart);
      }
    }
    const ch = code[cursor]!;
    if (ch === '=' && code[cursor + 1] === '>') {
      push(T.Arrow, '=>');
      cursor += 2;
      return;
    }
    let m = match(OPERATOR, code, cursor);
    if (m) {
      push(T.Operator, m[0].replace(/[ \t\n\v\f\r]+/g, ' '));
      cursor += m[0].length;
      return;
    }
    m = match(NAME, code, cursor);
    if (m) {
      push(T.Name, m[0]);
      cursor += m[0].length;
      return;
    }
    m = match(NUMBER, code, cursor);
    if (m) {
      push(T.Number, m[0], cursor, numberLiteral(m[0]));
      cursor += m[0].length;
      return;
    }
    if (PUNCTUATION.includes(ch)) {
      if ('([{'.includes(ch)) {
        brackets.push({ ch, pos: cursor });
      } else if (')]}'.includes(ch)) {
        const open = brackets.pop();
        if (!open) throw new CompileFault(`Unexpected "${ch}".`, cursor);
        const want = open.ch === '(' ? ')' : open.ch === '[' ? ']' : '}';
        if (ch !== want) throw new CompileFault(`Unclosed "${open.ch}".`, open.pos);
      }
      push(T.Punct, ch);
      cursor++;
      return;
    }
    m = match(STRING, code, cursor);
    if (m) {
      push(T.String, stripcslashes(m[0].slice(1, -1)));
      cursor += m[0].length;
      return;
    }
    if (ch === '"') {
      brackets.push({ ch: '"', pos: cursor });
      pushState(State.String);
      cursor++;
      return;
    }
    throw new CompileFault(`Unexpected character "${ch}".`, cursor);
  };

  while (cursor < end) {
    switch (state) {
      case State.Data:
        lexData();
        break;
      case State.Block:
      case State.Var: {
        const re = state === State.Block ? LEX_BLOCK : LEX_VAR;
        const m = brackets.length === 0 ? match(re, code, cursor) : null;
        if (m) {
          push(state === State.Block ? T.BlockEnd : T.VarEnd);
          cursor += m[0].length;
          popState();
        } else {
          lexExpression();
        }
        break;
      }
      case State.String: {
        const interp = match(INTERP_START, code, cursor);
        if (interp) {
          brackets.push({ ch: '#{', pos: cursor });
          push(T.InterpStart);
          cursor += interp[0].length;
          pushState(State.Interpolation);
          break;
        }
        const part = match(DQ_PART, code, cursor);
        if (part && part[0].length > 0) {
          push(T.String, stripcslashes(part[0]));
          cursor += part[0].length;
          break;
        }
        if (code[cursor] === '"') {
          brackets.pop();
          popState();
          cursor++;
          break;
        }
        throw new CompileFault(`Unexpected character "${code[cursor]}".`, cursor);
      }
      case State.Interpolation: {
        const top = brackets[brackets.length - 1];
        const m = top?.ch === '#{' ? match(INTERP_END, code, cursor) : null;
        if (m) {
          brackets.pop();
          push(T.InterpEnd);
          cursor += m[0].length;
          popState();
        } else {
          lexExpression();
        }
        break;
      }
    }
  }
  if (state === State.Block || state === State.Var) {
    throw new CompileFault(`Unclosed "${state === State.Block ? 'block' : 'variable'}".`, blockStart);
  }
  const open = brackets.pop();
  if (open) throw new CompileFault(`Unclosed "${open.ch}".`, open.pos);
  push(T.Eof, '', end);
  return tokens;
}
