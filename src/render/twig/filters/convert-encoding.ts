import { warn } from '../runtime/budget.js';
import { fail } from '../runtime/fault.js';
import { ICONV_NAMES, TRANSLIT } from './iconv-tables.js';

/**
 * Twig's convert_encoding is PHP's iconv($from, $to, $s) on the string's UTF-8 bytes. Herald
 * converts between UTF-8, Latin-1, Windows-1252 and ASCII; a result whose bytes are not UTF-8
 * is refused, since a message can only hold text.
 */
type Charset = 'utf8' | 'latin1' | 'cp1252' | 'ascii';

// glibc's names for the four (its builtin aliases and gconv-modules'), upper case as it compares them
const CHARSETS: ReadonlyMap<string, Charset> = new Map([
  ...['UTF-8', 'UTF8', 'ISO-10646/UTF8', 'ISO-10646/UTF-8', 'ISO-IR-193', 'OSF05010001'].map(
    (n) => [n, 'utf8'] as const,
  ),
  ...[
    'ISO-8859-1',
    'ISO8859-1',
    'ISO_8859-1',
    'ISO88591',
    'ISO_8859-1:1987',
    'ISO-IR-100',
    'LATIN1',
    'L1',
    'IBM819',
    'CP819',
    'CSISOLATIN1',
    '8859_1',
    'OSF00010001',
  ].map((n) => [n, 'latin1'] as const),
  ...['CP1252', 'WINDOWS-1252', 'MS-ANSI'].map((n) => [n, 'cp1252'] as const),
  ...[
    'ANSI_X3.4-1968',
    'ANSI_X3.4-1986',
    'ANSI_X3.4',
    'ISO-IR-6',
    'ISO_646.IRV:1991',
    'ASCII',
    'ISO646-US',
    'US-ASCII',
    'US',
    'IBM367',
    'CP367',
    'CSASCII',
    'OSF00010020',
    // an empty name is the locale's charset: the C locale's
    '',
  ].map((n) => [n, 'ascii'] as const),
]);

/** A name as glibc reads it: the part before `//`, without the characters it drops, in upper case. */
function charsetOf(name: string): { base: string; suffixes: string } {
  const cut = name.indexOf('//');
  const base = (cut < 0 ? name : name.slice(0, cut)).replace(/[^A-Za-z0-9_.,:/-]/g, '').replace(/\/+$/, '');
  return { base: base.toUpperCase(), suffixes: cut < 0 ? '' : name.slice(cut) };
}

// Windows-1252's 0x80-0x9F; 0 marks the five bytes the charset leaves undefined
const CP1252_HIGH = [
  0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0,
  0x017d, 0, 0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a,
  0x0153, 0, 0x017e, 0x0178,
];

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
  const target = charsetOf(toName);
  const source = charsetOf(fromName).base;
  const to = CHARSETS.get(target.base);
  const from = CHARSETS.get(source);
  if (to === undefined || from === undefined) {
    // a charset glibc has but Herald does not convert is refused; a name glibc does not know warns
    const known = (n: string): boolean => CHARSETS.has(n) || ICONV_NAMES.has(n);
    if (known(target.base) && known(source)) {
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
  // glibc reads its suffixes in any case; PHP honours an illegal character skipped only under
  // its own, case-sensitive, check for //IGNORE
  const translit = /\/\/TRANSLIT/i.test(target.suffixes);
  const ignore = target.suffixes.includes('//IGNORE');
  const bytes: number[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const byte = encodeChar(cp, to);
    if (byte !== undefined) bytes.push(byte);
    else if (translit) {
      const replacement = TRANSLIT.get(cp) ?? '?';
      for (let i = 0; i < replacement.length; i++) bytes.push(replacement.charCodeAt(i));
    } else if (!ignore) {
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
