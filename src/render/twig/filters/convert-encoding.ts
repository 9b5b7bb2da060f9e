import { warn } from '../runtime/budget.js';
import { fail } from '../runtime/fault.js';

/**
 * Twig's convert_encoding is PHP's iconv($from, $to, $s) on the string's UTF-8 bytes. Herald
 * converts between UTF-8, Latin-1, Windows-1252 and ASCII; a result whose bytes are not UTF-8
 * is refused, since a message can only hold text.
 */
type Charset = 'utf8' | 'latin1' | 'cp1252' | 'ascii';

// glibc's names for the charsets above (iconv compares them without case)
const CHARSETS: Readonly<Record<string, Charset>> = {
  'UTF-8': 'utf8',
  UTF8: 'utf8',
  'ISO-8859-1': 'latin1',
  'ISO8859-1': 'latin1',
  'ISO_8859-1': 'latin1',
  LATIN1: 'latin1',
  L1: 'latin1',
  IBM819: 'latin1',
  CP819: 'latin1',
  CP1252: 'cp1252',
  'WINDOWS-1252': 'cp1252',
  MS_ANSI: 'cp1252',
  ASCII: 'ascii',
  'US-ASCII': 'ascii',
  'ANSI_X3.4-1968': 'ascii',
  'ISO646-US': 'ascii',
  US: 'ascii',
};

// Windows-1252's 0x80-0x9F; 0 marks the five bytes the charset leaves undefined
const CP1252_HIGH = [
  0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0,
  0x017d, 0, 0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a,
  0x0153, 0, 0x017e, 0x0178,
];

function knownCharset(name: string): boolean {
  if (/^(UTF-?(16|32)(BE|LE)?|UCS-?[24](BE|LE)?)$/i.test(name)) return true;
  try {
    new TextDecoder(name);
    return true;
  } catch {
    return false;
  }
}

const UTF8_STRICT = new TextDecoder('utf-8', { fatal: true });

/** The byte `cp` is in a single-byte charset, or undefined where it has none. */
function encodeChar(cp: number, to: Exclude<Charset, 'utf8'>): number | undefined {
  if (cp < 0x80) return cp;
  if (to === 'ascii') return undefined;
  if (cp >= 0xa0 && cp <= 0xff) return cp;
  if (to === 'latin1') return cp <= 0xff ? cp : undefined;
  const i = CP1252_HIGH.indexOf(cp);
  return i >= 0 ? 0x80 + i : undefined;
}

const ILLEGAL = 'iconv(): Detected an illegal character in input string';

/** The input's UTF-8 bytes read as `from`; undefined where a byte has no character there. */
function decode(s: string, from: Charset): string | undefined {
  if (from === 'utf8') return s;
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    if (byte < 0x80) out += String.fromCharCode(byte);
    else if (from === 'ascii') return undefined;
    else if (from === 'latin1' || byte >= 0xa0) out += String.fromCharCode(byte);
    else {
      const cp = CP1252_HIGH[byte - 0x80]!;
      if (cp === 0) return undefined;
      out += String.fromCharCode(cp);
    }
  }
  return out;
}

export function convertEncoding(s: string, toName: string, fromName: string): string | false {
  const [toBase = '', ...suffixes] = toName.toUpperCase().split('//');
  const to = CHARSETS[toBase];
  const from = CHARSETS[fromName.toUpperCase()];
  if (to === undefined || from === undefined) {
    // a charset iconv has but Herald does not convert is refused; a name no one knows warns
    if ((to !== undefined || knownCharset(toBase)) && (from !== undefined || knownCharset(fromName))) {
      return fail(`convert_encoding from ${fromName} to ${toName} is not supported`);
    }
    warn(`iconv(): Wrong encoding, conversion from "${fromName}" to "${toName}" is not allowed`);
    return false;
  }
  const text = decode(s, from);
  if (text === undefined) {
    warn(ILLEGAL);
    return false;
  }
  if (to === 'utf8') return text;
  const ignore = suffixes.includes('IGNORE');
  const bytes: number[] = [];
  for (const ch of text) {
    const byte = encodeChar(ch.codePointAt(0)!, to);
    if (byte !== undefined) bytes.push(byte);
    else if (suffixes.includes('TRANSLIT')) return fail(`convert_encoding to ${toName} is not supported`);
    else if (!ignore) {
      warn(ILLEGAL);
      return false;
    }
  }
  // the bytes iconv writes come back as text only where they happen to be UTF-8 again
  try {
    return UTF8_STRICT.decode(Uint8Array.from(bytes));
  } catch {
    return fail(`convert_encoding to ${toName} would write bytes that are not UTF-8 text`);
  }
}
