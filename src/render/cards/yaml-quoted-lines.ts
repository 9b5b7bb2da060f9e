/**
 * PHP's YAML readers (libyaml, Symfony Yaml) take a quoted scalar whose continuation lines are
 * indented less than YAML 1.2 asks, which is what `'{{ text|yaml_escape(1) }}'` gives in a nested
 * position when the text has line breaks; the `yaml` package refuses it. This pass indents every
 * continuation line of a quoted scalar to the column of its opening quote. Leading white space of
 * such a line is never part of the value (line folding trims it), so the value is unchanged.
 * parseYaml runs it only on a text the strict parse refused, and answers the strict parse's error
 * if the indented text is refused too. It is a scanner, not a parser: it needs to know only where
 * quoted scalars are, so it tracks comments, block scalars and plain scalars no further than that.
 */
export function indentQuotedContinuations(text: string): string {
  const lines = text.split('\n');
  /** Inside a quoted scalar across lines: its quote character and the column of the opening quote. */
  let open: { quote: "'" | '"'; column: number } | null = null;
  /** Inside a block scalar (`|`, `>`): lines indented more than this belong to it. */
  let blockIndent = -1;
  let changed = false;
  for (let n = 0; n < lines.length; n++) {
    let line = lines[n]!;
    if (open) {
      const body = line.replace(/^[ \t]+/, '');
      const indent = line.length - body.length;
      // at least one space: a line at column 0 could read as a document marker (`---`)
      const column = Math.max(open.column, 1);
      if (body !== '' && body !== '\r' && indent < column) {
        line = ' '.repeat(column) + body;
        lines[n] = line;
        changed = true;
      }
      const end = closeQuote(line, 0, open.quote);
      if (end < 0) continue;
      const rest = scanLine(line, end);
      open = rest.open;
      if (rest.block) blockIndent = blockIndentOf(line);
      continue;
    }
    const indent = blockIndentOf(line);
    if (blockIndent >= 0) {
      if (line.trim() === '' || indent > blockIndent) continue;
      blockIndent = -1;
    }
    const result = scanLine(line, indent);
    open = result.open;
    if (result.block) blockIndent = indent;
  }
  return changed ? lines.join('\n') : text;
}

function blockIndentOf(line: string): number {
  return line.length - line.replace(/^ +/, '').length;
}

/** Index just past the closing quote from `from`, or -1 when the line ends inside the scalar. */
function closeQuote(line: string, from: number, quote: "'" | '"'): number {
  for (let i = from; i < line.length; i++) {
    const c = line[i];
    if (quote === '"' && c === '\\') i++;
    else if (c === quote) {
      if (quote === "'" && line[i + 1] === "'") i++;
      else return i + 1;
    }
  }
  return -1;
}

const SPACE = /[ \t\r]/;

/**
 * Scans one line from `at` in block or flow context: where a quoted scalar opens and whether it
 * closes, whether a block scalar header (`|`, `>`) ends the line.
 */
function scanLine(
  line: string,
  at: number,
): { open: { quote: "'" | '"'; column: number } | null; block: boolean } {
  let i = at;
  let flow = 0;
  const atEnd = (k: number) => k >= line.length || SPACE.test(line[k]!);
  while (i < line.length) {
    const c = line[i]!;
    if (SPACE.test(c)) {
      i++;
      continue;
    }
    if (c === '#') break;
    if ((c === '-' || c === '?' || c === ':') && atEnd(i + 1)) {
      i++;
      continue;
    }
    if (c === '[' || c === '{') {
      flow++;
      i++;
      continue;
    }
    if (c === ']' || c === '}' || c === ',') {
      if (flow > 0 && c !== ',') flow--;
      i++;
      continue;
    }
    if (c === "'" || c === '"') {
      const end = closeQuote(line, i + 1, c);
      if (end < 0) return { open: { quote: c, column: i }, block: false };
      i = end;
      continue;
    }
    if ((c === '|' || c === '>') && flow === 0) {
      const rest = line.slice(i + 1).replace(/#.*$/, '');
      return { open: null, block: /^[0-9+-]*\s*$/.test(rest) };
    }
    // A plain scalar (or an anchor, tag or alias): it ends at ": ", " #", or in flow context at
    // a flow indicator; quotes inside it are part of its text.
    i++;
    while (i < line.length) {
      const d = line[i]!;
      if (d === ':' && atEnd(i + 1)) break;
      if (d === '#' && SPACE.test(line[i - 1]!)) break;
      if (flow > 0 && (d === ',' || d === ']' || d === '}' || d === '[' || d === '{')) break;
      i++;
    }
  }
  return { open: null, block: false };
}
