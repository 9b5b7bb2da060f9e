import { charge } from './budget.js';
import { INT64_MAX, int64 } from './int64.js';
import { TwigObject } from './twig-object.js';
import type { Value } from './value.js';

/** An int key is a number, or a bigint beyond 2^53 (see int64.ts). */
export type Key = string | number | bigint;

const INT_KEY = /^(?:0|-?[1-9][0-9]{0,18})$/;

/**
 * PHP turns decimal-integer strings within int64 used as array keys into integers ("12" -> 12,
 * "012" and "9223372036854775808" stay strings).
 */
export function normalizeStringKey(s: string): Key {
  // an integer key starts with a digit or a minus sign: most keys (names) are told apart by
  // their first character, without the regex
  const c = s.charCodeAt(0);
  if (!((c >= 0x30 && c <= 0x39) || c === 0x2d)) return s;
  if (s.length < 21 && INT_KEY.test(s)) {
    const n = Number(s);
    if (Number.isSafeInteger(n)) return n;
    const b = BigInt(s);
    if (b <= INT64_MAX && b >= -INT64_MAX - 1n) return int64(b);
  }
  return s;
}

/** heldAt's answer for a map-backed array. */
export const NOT_HELD: unique symbol = Symbol('not held');

/**
 * `o.get(key)` of a JSON object from the input read directly, when it is a scalar or null;
 * undefined when `x` is not such an object or the value is an array or object (its view is the
 * caller's to make).
 */
export function jsonScalarAt(x: unknown, key: Key): Value | undefined {
  if (typeof x !== 'object' || x === null || Array.isArray(x) || !isPlainObject(x)) return undefined;
  const prop = typeof key === 'string' ? key : String(key);
  if (!Object.hasOwn(x, prop)) return null;
  const v = (x as Record<string, unknown>)[prop];
  const t = typeof v;
  if (t === 'string' || t === 'number' || t === 'boolean' || v === null) return v as Value;
  return undefined;
}

function isPlainObject(x: object): boolean {
  const proto = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null;
}

/**
 * Turns one JSON value (as JSON.parse gives it) into a template value without copying: objects
 * and arrays become read-only views. Anything that is not JSON-shaped becomes null, so no host
 * object can enter a template through its data.
 */
export function fromJson(x: unknown): Value {
  switch (typeof x) {
    case 'string':
    case 'boolean':
    case 'bigint':
      return x;
    case 'number':
      // JSON.parse gives -0 only for "-0"/"-0.0"; PHP keeps -0.0 as a float that prints "-0"
      return x;
    case 'object':
      if (x === null) return null;
      if (x instanceof TwigObject) return x as Value;
      if (Array.isArray(x)) return new PhpArray(0, x, undefined, undefined);
      if (isPlainObject(x)) return new PhpArray(1, undefined, x as Record<string, unknown>, undefined);
      return null;
    default:
      return null;
  }
}

/**
 * A PHP array: an ordered map with integer and string keys. Three backings keep the common cases
 * cheap: a list (keys 0..n-1), a read-only view over a JSON object from the input, or a Map.
 * Instances are immutable once built; every filter builds a new one.
 */
export class PhpArray extends TwigObject {
  readonly phpClass = 'array';
  /** 0 = list, 1 = JSON object view, 2 = map */
  private readonly mode: 0 | 1 | 2;
  private readonly items: readonly unknown[] | undefined;
  private readonly obj: Record<string, unknown> | undefined;
  /** Not readonly: LoopArray fills it on first use. */
  protected map: ReadonlyMap<Key, Value> | undefined;
  private keyCache: Key[] | undefined;
  /**
   * Views of nested arrays and objects already asked for by key: a template reads `data.commits`
   * or `commit.author` again and again, and each view would otherwise be a new object.
   */
  /** null on an element handed out by iteration: see element(). */
  private kids: Map<Key, PhpArray> | undefined | null;

  constructor(
    mode: 0 | 1 | 2,
    items: readonly unknown[] | undefined,
    obj: Record<string, unknown> | undefined,
    map: ReadonlyMap<Key, Value> | undefined,
  ) {
    super();
    this.mode = mode;
    this.items = items;
    this.obj = obj;
    this.map = map;
  }

  static list(values: readonly Value[]): PhpArray {
    return new PhpArray(0, values, undefined, undefined);
  }

  static fromMap(map: ReadonlyMap<Key, Value>): PhpArray {
    return new PhpArray(2, undefined, undefined, map);
  }

  static readonly EMPTY = PhpArray.list([]);

  get size(): number {
    if (this.mode === 0) return this.items!.length;
    if (this.mode === 2) return this.map!.size;
    return this.keys().length;
  }

  /** First value without building the key list (false-y callers check undefined). */
  firstValue(): Value | undefined {
    if (this.mode === 0) return this.items!.length > 0 ? this.get(0) : undefined;
    const k = this.mode === 2 ? this.map!.keys().next().value : this.keys()[0];
    return k === undefined ? undefined : this.get(k);
  }

  lastValue(): Value | undefined {
    if (this.mode === 0) {
      const items = this.items!;
      return items.length > 0 ? this.get(items.length - 1) : undefined;
    }
    const keys = this.keys();
    const k = keys[keys.length - 1];
    return k === undefined ? undefined : this.get(k);
  }

  /** The value at an already normalized key, or undefined when absent. */
  get(key: Key): Value | undefined {
    let raw: unknown;
    if (this.mode === 0) {
      if (typeof key !== 'number') return undefined;
      const items = this.items!;
      if (!(key >= 0 && key < items.length)) return undefined;
      raw = items[key];
    } else if (this.mode === 2) {
      return this.map!.get(key);
    } else {
      const obj = this.obj!;
      const prop = typeof key === 'string' ? key : String(key);
      // Own properties only: a JSON object view never answers from Object.prototype.
      // keys arrive normalized, so a string key is never integer-like and maps to itself
      if (!Object.hasOwn(obj, prop)) return undefined;
      raw = obj[prop];
    }
    // scalars first (most reads): no call through fromJson
    const t = typeof raw;
    if (t === 'string' || t === 'number' || t === 'boolean') return raw as Value;
    if (t !== 'object' || raw === null) return fromJson(raw);
    if (this.kids === null) return fromJson(raw);
    let kid = this.kids?.get(key);
    if (kid === undefined) {
      const v = fromJson(raw);
      if (!(v instanceof PhpArray)) return v;
      kid = v;
      if (this.kids === undefined) this.kids = new Map();
      this.kids.set(key, kid);
    }
    return kid;
  }

  /**
   * What a list or a JSON object view holds at `key` as it holds it (a JSON value from the input,
   * or a value a filter put there), undefined when absent, NOT_HELD for a map (LoopArray's
   * answers are its own): lets `a.b.c` read through `a.b` without making its view.
   */
  heldAt(key: Key): unknown {
    if (this.mode === 0) {
      if (typeof key !== 'number') return undefined;
      const items = this.items!;
      return key >= 0 && key < items.length ? items[key] : undefined;
    }
    if (this.mode === 2) return NOT_HELD;
    const obj = this.obj!;
    const prop = typeof key === 'string' ? key : String(key);
    return Object.hasOwn(obj, prop) ? obj[prop] : undefined;
  }

  /**
   * The length of the input's JSON array at `key` (`commit.added|length`), without making its
   * view; undefined when the value there is anything else (the caller then reads it as usual).
   */
  listLengthAt(key: Key): number | undefined {
    const raw = this.heldAt(key);
    return Array.isArray(raw) ? raw.length : undefined;
  }

  /**
   * A value as iteration hands it out. An element's own nested arrays are not kept: a loop's
   * body mostly reads each of them once (`commit.author.name`), and a Map per element cost more
   * than the views it saved; what a template reads again and again hangs off `data`, which keeps
   * them.
   */
  private static element(x: unknown): Value {
    const v = fromJson(x);
    // only a view made here: an array built by a filter holds views that others may share
    if (v instanceof PhpArray && v !== x) v.kids = null;
    return v;
  }

  has(key: Key): boolean {
    return this.get(key) !== undefined;
  }

  keys(): Key[] {
    if (this.keyCache) return this.keyCache;
    let keys: Key[];
    if (this.mode === 0) {
      keys = new Array<Key>(this.items!.length);
      for (let i = 0; i < keys.length; i++) keys[i] = i;
    } else if (this.mode === 2) {
      keys = [...this.map!.keys()];
    } else {
      keys = Object.keys(this.obj!).map(normalizeStringKey);
    }
    charge(keys.length >> 3);
    this.keyCache = keys;
    return keys;
  }

  values(): Value[] {
    if (this.mode !== 1) charge(this.size >> 3);
    if (this.mode === 0) return this.items!.map(PhpArray.element);
    if (this.mode === 2) return [...this.map!.values()];
    const obj = this.obj!;
    // the keys a `for k, v` loop asked for first, if it did (a normalized key reads the same
    // property: "12" became 12, which indexes as "12")
    const keys: readonly (string | Key)[] = this.keyCache ?? Object.keys(obj);
    return keys.map((k) => PhpArray.element(obj[k as string]));
  }

  /** Whether some value satisfies `pred`, stopping at the first (no copy of the values). */
  some(pred: (value: Value) => boolean): boolean {
    if (this.mode === 0) {
      const items = this.items!;
      for (let i = 0; i < items.length; i++) if (pred(PhpArray.element(items[i]))) return true;
      return false;
    }
    if (this.mode === 2) {
      for (const v of this.map!.values()) if (pred(v)) return true;
      return false;
    }
    const obj = this.obj!;
    for (const k of Object.keys(obj)) if (pred(PhpArray.element(obj[k]))) return true;
    return false;
  }

  /** True when the keys are exactly 0..n-1 in order (PHP's array_is_list). */
  isList(): boolean {
    if (this.mode === 0) return true;
    const keys = this.keys();
    for (let i = 0; i < keys.length; i++) if (keys[i] !== i) return false;
    return true;
  }

  forEach(fn: (value: Value, key: Key) => void): void {
    if (this.mode !== 1) charge(this.size >> 3);
    if (this.mode === 0) {
      const items = this.items!;
      for (let i = 0; i < items.length; i++) fn(PhpArray.element(items[i]), i);
      return;
    }
    if (this.mode === 2) {
      for (const [k, v] of this.map!) fn(v, k);
      return;
    }
    const obj = this.obj!;
    for (const k of Object.keys(obj)) fn(PhpArray.element(obj[k]), normalizeStringKey(k));
  }

  /** The values if this array is a list, else undefined (lets callers take a fast path). */
  listValues(): Value[] | undefined {
    return this.mode === 0 ? this.items!.map(PhpArray.element) : undefined;
  }
}

/** Builds a PHP array the way PHP's `[]` appends and `$a[$k] = $v` assigns. */
export class ArrayBuilder {
  private readonly map = new Map<Key, Value>();
  private next: number | bigint = 0;
  private listOnly = true;
  private readonly list: Value[] = [];

  push(value: Value): void {
    if (this.listOnly) {
      this.list.push(value);
      this.next = this.list.length;
      return;
    }
    this.map.set(this.next, value);
    this.next = typeof this.next === 'number' ? this.next + 1 : int64(this.next + 1n);
  }

  set(key: Key, value: Value): void {
    if (this.listOnly) {
      if (key === this.list.length) {
        this.push(value);
        return;
      }
      if (typeof key === 'number' && key >= 0 && key < this.list.length) {
        this.list[key] = value;
        return;
      }
      this.listOnly = false;
      this.list.forEach((v, i) => {
        this.map.set(i, v);
      });
    }
    this.map.set(key, value);
    if (typeof key === 'number' && key >= this.next) this.next = key + 1;
    else if (typeof key === 'bigint' && key >= this.next) this.next = int64(key + 1n);
  }

  get count(): number {
    return this.listOnly ? this.list.length : this.map.size;
  }

  build(): PhpArray {
    return this.listOnly ? PhpArray.list(this.list) : PhpArray.fromMap(this.map);
  }
}
