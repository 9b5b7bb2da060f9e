import { type Key, PhpArray } from './php-array.js';
import type { Value } from './value.js';

/**
 * Twig's `loop` variable for one iteration: a PHP array of parent, index0, index, first,
 * revindex0, revindex, length and last. `loop.index` and the like answer from three fields; the
 * map behind it is built only when the template treats `loop` as a whole array (keys, filters,
 * printing), so a loop that reads `loop.index` allocates one small object per iteration.
 */
export class LoopArray extends PhpArray {
  private readonly parent: PhpArray;
  private readonly i: number;
  private readonly n: number;

  constructor(parent: PhpArray, i: number, n: number) {
    super(2, undefined, undefined, undefined);
    this.parent = parent;
    this.i = i;
    this.n = n;
  }

  override get(key: Key): Value | undefined {
    const { i, n } = this;
    switch (key) {
      case 'parent':
        return this.parent;
      case 'index0':
        return i;
      case 'index':
        return i + 1;
      case 'first':
        return i === 0;
      case 'revindex0':
        return n - i - 1;
      case 'revindex':
        return n - i;
      case 'length':
        return n;
      case 'last':
        return i === n - 1;
      default:
        return undefined;
    }
  }

  /** Builds the map the inherited methods read. */
  private full(): void {
    if (this.map !== undefined) return;
    const m = new Map<Key, Value>();
    for (const k of LOOP_KEYS) m.set(k, this.get(k)!);
    this.map = m;
  }

  override get size(): number {
    return LOOP_KEYS.length;
  }
  override firstValue(): Value | undefined {
    return this.parent;
  }
  override lastValue(): Value | undefined {
    return this.get('last');
  }
  override keys(): Key[] {
    this.full();
    return super.keys();
  }
  override values(): Value[] {
    this.full();
    return super.values();
  }
  override some(pred: (value: Value) => boolean): boolean {
    this.full();
    return super.some(pred);
  }
  override isList(): boolean {
    return false;
  }
  override forEach(fn: (value: Value, key: Key) => void): void {
    this.full();
    super.forEach(fn);
  }
  override listValues(): Value[] | undefined {
    return undefined;
  }
}

const LOOP_KEYS: readonly Key[] = [
  'parent',
  'index0',
  'index',
  'first',
  'revindex0',
  'revindex',
  'length',
  'last',
];
