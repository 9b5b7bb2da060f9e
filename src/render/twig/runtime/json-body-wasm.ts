import { Buffer } from 'node:buffer';

/**
 * json_escape's body for long strings, in a small WebAssembly function with 128-bit SIMD: V8 11.3
 * has no vector instructions in JavaScript, and a scan of eight UTF-16 units per instruction
 * finds the few units JSON must escape in a fraction of the time of any JS loop. The string is
 * copied into the module's memory natively (Buffer#write as UTF-16LE), escaped into a second
 * region there, and read back as one flat string. The module is assembled here from its
 * instructions (no build step, no binary file); its function is, in WebAssembly text:
 *
 *   (func $escape (param $n i32) (result i32)   ;; $n units at byte 0 -> units written at OUT, or -1
 *     loop: while 32 bytes remain and neither 16-byte chunk holds a special unit, copy both;
 *           then one chunk: copy it; if it holds a special unit (within the string), advance to
 *           the first one and write its escape (or copy a surrogate pair, or answer -1 for a lone
 *           surrogate); else advance past it.
 *
 * Special units: controls (below 0x20), `"`, `\`, U+2028, U+2029 and surrogates, tested per
 * lane as `(u & 0xffe0) == 0`, `u == 0x22`, `u == 0x5c`, `(u & 0xf800) == 0xd800` and
 * `(u & 0xfffe) == 0x2028`. Chunks may read and write up to 16 bytes past a string's end: the
 * regions leave room for it, and lanes past the end are masked off.
 */

/** The longest string escaped here, in UTF-16 units; longer ones take the caller's path. */
export const MAX_UNITS = 1 << 16;
/** Byte offsets in the module's memory: the input, the escape table, the output (up to 6 units a unit). */
const ESC_TABLE = 2 * MAX_UNITS + 256;
const OUT = ESC_TABLE + 256;
const PAGES = Math.ceil((OUT + 12 * MAX_UNITS + 64) / 65536);

// --- the binary format: unsigned and signed LEB128, vectors, sections
const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};
const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
};
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const name = (s: string): number[] => vec([...s].map((c) => [c.charCodeAt(0)]));

// --- instructions (named as in the text format)
const I32 = 0x7f;
const V128 = 0x7b;
const simd = (op: number): number[] => [0xfd, ...uleb(op)];
const i32Const = (n: number): number[] => [0x41, ...sleb(n)];
const get = (local: number): number[] => [0x20, local];
const set = (local: number): number[] => [0x21, local];
const tee = (local: number): number[] => [0x22, local];
const block = [0x02, 0x40];
const loop = [0x03, 0x40];
const ifThen = [0x04, 0x40];
const elseDo = 0x05;
const end = 0x0b;
const br = (depth: number): number[] => [0x0c, depth];
const brIf = (depth: number): number[] => [0x0d, depth];
const ret = 0x0f;
const select = 0x1b;
const [eqz, eq, ne, ltU, geU] = [0x45, 0x46, 0x47, 0x49, 0x4f];
const [ctz, add, sub, and, or, shl, shrU] = [0x68, 0x6a, 0x6b, 0x71, 0x72, 0x74, 0x76];
const load8U = [0x2d, 0, 0];
const load16U = [0x2f, 1, 0];
const store16 = (offset: number): number[] => [0x3b, 1, ...uleb(offset)];
const v128Load = (offset: number): number[] => [...simd(0x00), 0, ...uleb(offset)];
const v128Store = (offset: number): number[] => [...simd(0x0b), 0, ...uleb(offset)];
const v128Zero = [...simd(0x0c), ...new Array<number>(16).fill(0)];
const i16x8Splat = (n: number): number[] => [...i32Const(n), ...simd(0x10)];
const [i16x8Eq, v128And, v128Or, v128AnyTrue, i16x8Bitmask] = [
  simd(0x2d),
  simd(0x4e),
  simd(0x50),
  simd(0x53),
  simd(0x84),
];

// --- the function's locals: $n is the parameter; byte offsets $i (input) and $o (output)
const N = 0;
const [I, O, END, M, C, D] = [1, 2, 3, 4, 5, 6];
const [V, W, S, MASK_CTL, QUOTE, BACKSLASH, MASK_SUR, SUR, MASK_SEP, SEP] = [
  7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
];

/** The v128 on the stack -> its special lanes (all ones where a unit is special). */
// biome-ignore format: one test per line
const special = (): number[] => [
  ...set(S),
  ...get(S), ...get(MASK_CTL), ...v128And, ...v128Zero, ...i16x8Eq,
  ...get(S), ...get(QUOTE), ...i16x8Eq, ...v128Or,
  ...get(S), ...get(BACKSLASH), ...i16x8Eq, ...v128Or,
  ...get(S), ...get(MASK_SUR), ...v128And, ...get(SUR), ...i16x8Eq, ...v128Or,
  ...get(S), ...get(MASK_SEP), ...v128And, ...get(SEP), ...i16x8Eq, ...v128Or,
];
/** Writes a constant unit, or a local's, at $o + offset. */
const putConst = (offset: number, unit: number): number[] => [
  ...get(O),
  ...i32Const(unit),
  ...store16(offset),
];
const putLocal = (offset: number, local: number): number[] => [...get(O), ...get(local), ...store16(offset)];
const bump = (local: number, n: number): number[] => [...get(local), ...i32Const(n), add, ...set(local)];
/** $end - $i, the bytes of input left. */
const left = (): number[] => [...get(END), ...get(I), sub];

// biome-ignore format: one instruction (or a short group) per line reads like the text format
const body: number[] = [
  ...i16x8Splat(0xffe0), ...set(MASK_CTL),
  ...i16x8Splat(0x22), ...set(QUOTE),
  ...i16x8Splat(0x5c), ...set(BACKSLASH),
  ...i16x8Splat(0xf800), ...set(MASK_SUR),
  ...i16x8Splat(0xd800), ...set(SUR),
  ...i16x8Splat(0xfffe), ...set(MASK_SEP),
  ...i16x8Splat(0x2028), ...set(SEP),
  ...i32Const(OUT), ...set(O),
  ...get(N), ...i32Const(1), shl, ...set(END),
  ...block, ...loop, // $next: one special unit (or the end) per turn
    // two chunks at a time while both are the string's and hold nothing special
    ...block, ...loop,
      ...left(), ...i32Const(32), ltU, ...brIf(1),
      ...get(I), ...v128Load(0), ...tee(V), ...special(),
      ...get(I), ...v128Load(16), ...tee(W), ...special(), ...v128Or,
      ...v128AnyTrue, ...brIf(1),
      ...get(O), ...get(V), ...v128Store(0),
      ...get(O), ...get(W), ...v128Store(16),
      ...bump(I, 32), ...bump(O, 32),
      ...br(0),
    end, end,
    ...get(I), ...get(END), geU, ...brIf(1),
    // one chunk, copied whole: the units before a special one are then in place
    ...get(I), ...v128Load(0), ...tee(V), ...special(), ...tee(S),
    ...get(O), ...get(V), ...v128Store(0),
    ...v128AnyTrue, eqz, ...left(), ...i32Const(16), geU, and,
    ...ifThen, ...bump(I, 16), ...bump(O, 16), ...br(1), end,
    ...get(S), ...i16x8Bitmask, ...set(M),
    // lanes past the end are not the string's
    ...left(), ...i32Const(16), ltU,
    ...ifThen,
      ...get(M), ...i32Const(1), ...left(), ...i32Const(1), shrU, shl, ...i32Const(1), sub, and, ...set(M),
    end,
    ...get(M), eqz,
    ...ifThen, ...get(O), ...left(), add, ...set(O), ...get(END), ...set(I), ...br(2), end,
    ...get(M), ctz, ...i32Const(1), shl, ...tee(M),
    ...get(I), add, ...set(I),
    ...get(O), ...get(M), add, ...set(O),
    ...get(I), ...load16U, ...set(C),
    ...bump(I, 2),
    // a control: \b \t \n \f \r from the table, others \u00XX
    ...get(C), ...i32Const(0x20), ltU,
    ...ifThen,
      ...putConst(0, 0x5c),
      ...get(C), ...i32Const(ESC_TABLE), add, ...load8U, ...tee(D),
      ...ifThen,
        ...putLocal(2, D), ...bump(O, 4),
      elseDo,
        ...putConst(2, 0x75), ...putConst(4, 0x30), ...putConst(6, 0x30),
        ...get(O), ...get(C), ...i32Const(4), shrU, ...i32Const(0x30), add, ...store16(8),
        ...get(C), ...i32Const(15), and, ...set(D),
        ...get(O), ...get(D), ...i32Const(0x57), add, ...get(D), ...i32Const(0x30), add,
        ...get(D), ...i32Const(10), geU, select, ...store16(10),
        ...bump(O, 12),
      end,
      ...br(1),
    end,
    // a quote or a backslash: a backslash before it
    ...get(C), ...i32Const(0x22), eq, ...get(C), ...i32Const(0x5c), eq, or,
    ...ifThen, ...putConst(0, 0x5c), ...putLocal(2, C), ...bump(O, 4), ...br(1), end,
    // U+2028, U+2029: \u2028, \u2029
    ...get(C), ...i32Const(0xfffe), and, ...i32Const(0x2028), eq,
    ...ifThen,
      ...putConst(0, 0x5c), ...putConst(2, 0x75), ...putConst(4, 0x32), ...putConst(6, 0x30), ...putConst(8, 0x32),
      ...get(O), ...get(C), ...i32Const(0x2028 - 0x38), sub, ...store16(10),
      ...bump(O, 12), ...br(1),
    end,
    // a surrogate: a high one followed by a low one is copied as it is; anything else is lone
    ...get(C), ...i32Const(0xdc00), geU, ...get(I), ...get(END), geU, or,
    ...ifThen, ...i32Const(-1), ret, end,
    ...get(I), ...load16U, ...tee(D), ...i32Const(0xfc00), and, ...i32Const(0xdc00), ne,
    ...ifThen, ...i32Const(-1), ret, end,
    ...putLocal(0, C), ...putLocal(2, D), ...bump(O, 4), ...bump(I, 2),
    ...br(0),
  end, end,
  ...get(O), ...i32Const(OUT), sub, ...i32Const(1), shrU,
  end,
];

function assemble(): Uint8Array {
  const table = new Array<number>(32).fill(0);
  for (const [c, letter] of [
    [8, 'b'],
    [9, 't'],
    [10, 'n'],
    [12, 'f'],
    [13, 'r'],
  ] as const)
    table[c] = letter.charCodeAt(0);
  const code = [
    ...vec([
      [6, I32],
      [10, V128],
    ]),
    ...body,
  ];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vec([[0x60, ...vec([[I32]]), ...vec([[I32]])]])), // type: (i32) -> i32
    ...section(3, vec([[0]])), // function 0 has type 0
    ...section(5, vec([[0x00, ...uleb(PAGES)]])), // memory: PAGES pages, fixed
    ...section(
      7,
      vec([
        [...name('escape'), 0x00, 0],
        [...name('memory'), 0x02, 0],
      ]),
    ),
    ...section(10, vec([[...uleb(code.length), ...code]])),
    ...section(11, vec([[0x00, ...i32Const(ESC_TABLE), end, ...vec(table.map((b) => [b]))]])),
  ]);
}

interface Escaper {
  escape(n: number): number;
  memory: Buffer;
}

/** What this module uses of the WebAssembly API (the project's TypeScript libs do not declare it). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (
    module: object,
  ) => { exports: { escape: (n: number) => number; memory: { buffer: ArrayBuffer } } };
}

/** Made on first use; null where WebAssembly or its SIMD is missing. */
let escaper: Escaper | null | undefined;

function load(): Escaper | null {
  const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;
  try {
    const bytes = assemble();
    if (wasm === undefined || !wasm.validate(bytes)) return null;
    const { exports } = new wasm.Instance(new wasm.Module(bytes));
    // the memory never grows, so this view stays valid
    return { escape: exports.escape, memory: Buffer.from(exports.memory.buffer) };
  } catch {
    return null;
  }
}

/**
 * The escaped body of `s`: `s` itself when nothing needed an escape; undefined when `s` holds a
 * lone surrogate; null when `s` is longer than MAX_UNITS or this host cannot run the module.
 */
export function jsonBodyWasm(s: string): string | undefined | null {
  const n = s.length;
  if (n > MAX_UNITS) return null;
  if (escaper === undefined) escaper = load();
  if (escaper === null) return null;
  const mem = escaper.memory;
  mem.write(s, 0, 'utf16le');
  const written = escaper.escape(n);
  if (written < 0) return undefined;
  // every escape is longer than its unit
  return written === n ? s : mem.toString('utf16le', OUT, OUT + 2 * written);
}
