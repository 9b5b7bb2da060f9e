import { describe, expect, it } from 'vitest';
import { jsonBodyWasm, MAX_UNITS } from '../../../../src/render/twig/runtime/json-body-wasm.js';

// JSON.stringify plus PHP's escape of U+2028/U+2029: what json_escape prints
const encoder = (s: string): string =>
  JSON.stringify(s)
    .slice(1, -1)
    .replace(/[\u2028\u2029]/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));

// json_escape's tests go through the filter, which falls back to the regex when the module does
// not load: these call the SIMD scan itself, so a module that fails to build or run shows here.
describe('json_escape by the SIMD scan', () => {
  it('runs on this host (Node 20 has WebAssembly SIMD) and escapes as the encoder does', () => {
    const specials = ['"', '\\', '\n', '\u0000', '\u001f', '\u2028', '\u2029', '😀', '中', '/'];
    for (const c of specials) {
      for (let len = 96; len < 130; len++) {
        const s = `${'y'.repeat(len)}${c}${'z'.repeat(len % 17)}`;
        expect(jsonBodyWasm(s)).toBe(encoder(s));
      }
    }
    const plain = 'q'.repeat(500);
    expect(jsonBodyWasm(plain)).toBe(plain);
  });

  it('answers undefined for a lone surrogate and null past its longest string', () => {
    expect(jsonBodyWasm(`${'x'.repeat(200)}\ud83d`)).toBeUndefined();
    expect(jsonBodyWasm(`${'x'.repeat(200)}\ude00x`)).toBeUndefined();
    expect(jsonBodyWasm('x'.repeat(MAX_UNITS + 1))).toBeNull();
    expect(jsonBodyWasm(`${'x'.repeat(MAX_UNITS - 1)}"`)).toBe(`${'x'.repeat(MAX_UNITS - 1)}\\"`);
  });
});
