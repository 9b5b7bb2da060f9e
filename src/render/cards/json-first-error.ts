/** Where a text stops being JSON, and why (the message without a position). */
export interface JsonError {
  readonly offset: number;
  readonly message: string;
}

class Stop {
  constructor(readonly error: JsonError) {}
}

/**
 * Where and why a text is not JSON (RFC 8259), found by a scan of its own: JSON.parse's message
 * is for people, and its wording and position format change between engine versions. The
 * wording follows V8's, so the messages read as they did. Only runs on text JSON.parse refused;
 * null when the scan finds nothing wrong. Iterative (a stack of open containers), so a deeply
 * nested text cannot overflow the call stack.
 */
export function firstJsonError(text: string): JsonError | null {
  const n = text.length;
  let i = 0;
  const stop = (message: string, at = i): never => {
    throw new Stop({ offset: at, message });
  };
  const unexpected = (): never =>
    i >= n ? stop('Unexpected end of JSON input') : stop(`Unexpected token '${text[i]}'`);
  const ws = (): void => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const isDigit = (at: number): boolean => at < n && text[at]! >= '0' && text[at]! <= '9';
  const digits = (): number => {
    const start = i;
    while (isDigit(i)) i++;
    return i - start;
  };

  const string = (): void => {
    i++; // the opening quote
    for (;;) {
      if (i >= n) stop('Unterminated string');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) stop('Bad control character in string literal');
      if (c !== 0x5c) {
        i++;
        continue;
      }
      const e = text[i + 1];
      if (e === 'u') {
        // At the first character that is not a hex digit.
        const hex = /^[0-9a-fA-F]{0,4}/.exec(text.slice(i + 2, i + 6))![0].length;
        if (hex < 4) stop('Bad Unicode escape', i + 2 + hex);
        i += 6;
      } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
      else stop('Bad escaped character', i + 1);
    }
  };

  const number = (): void => {
    if (text[i] === '-') {
      i++;
      if (!isDigit(i)) stop('No number after minus sign');
    }
    if (text[i] === '0') i++;
    else digits();
    if (text[i] === '.') {
      i++;
      if (digits() === 0) stop('Unterminated fractional number');
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (digits() === 0) stop('Exponent part is missing a number');
    }
  };

  const literal = (): void => {
    for (const word of ['true', 'false', 'null']) {
      if (text[i] !== word[0]) continue;
      // A broken literal is refused at its first wrong character.
      let k = 1;
      while (k < word.length && text[i + k] === word[k]) k++;
      i += k;
      if (k === word.length) return;
      break;
    }
    unexpected();
  };

  /** A key and its colon; `first` right after `{`, where V8 words the error differently. */
  const key = (first: boolean): void => {
    ws();
    if (text[i] !== '"')
      stop(first ? "Expected property name or '}'" : 'Expected double-quoted property name');
    string();
    ws();
    if (text[i] !== ':') stop("Expected ':' after property name");
    i++;
  };

  const open: Array<'{' | '['> = [];
  try {
    for (;;) {
      // A value is due.
      ws();
      const c = text[i];
      if (c === '{' || c === '[') {
        i++;
        ws();
        const close = c === '{' ? '}' : ']';
        if (text[i] === close) i++;
        else {
          open.push(c);
          if (c === '{') key(true);
          continue;
        }
      } else if (c === '"') string();
      else if (c === '-' || isDigit(i)) number();
      else literal();

      // After a value: close what is done, then a comma asks for the next value.
      let more = false;
      while (open.length > 0 && !more) {
        const top = open[open.length - 1]!;
        ws();
        if (text[i] === ',') {
          i++;
          if (top === '{') key(false);
          more = true;
        } else if (text[i] === (top === '{' ? '}' : ']')) {
          i++;
          open.pop();
        } else {
          stop(
            top === '{'
              ? "Expected ',' or '}' after property value"
              : "Expected ',' or ']' after array element",
          );
        }
      }
      if (!more) break;
    }
    ws();
    if (i < n) stop('Unexpected non-whitespace character after JSON');
    return null;
  } catch (err) {
    if (err instanceof Stop) return err.error;
    throw err;
  }
}
