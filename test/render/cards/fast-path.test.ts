import { describe, expect, it } from 'vitest';
import { validateCard } from '../../../src/render/cards/index.js';
import { LATER, NOW } from './helpers.js';

describe('validation fast path', () => {
  it('validates a 20-module card in microseconds (schema compiled once)', () => {
    const modules = Array.from({ length: 20 }, (_, i) =>
      i % 4 === 0
        ? {
            type: 'section',
            text: { type: 'kmarkdown', content: `**line ${i}**` },
            accessory: { type: 'image', src: 'a.png' },
          }
        : i % 4 === 1
          ? { type: 'context', elements: ['a', { type: 'kmarkdown', content: 'b' }] }
          : i % 4 === 2
            ? { type: 'countdown', mode: 'second', startTime: NOW, endTime: LATER }
            : { type: 'divider' },
    );
    const message = [{ type: 'card', theme: 'info', modules }];
    for (let i = 0; i < 200; i += 1) validateCard(message, NOW); // warm-up
    const runs = 2000;
    // CPU time, not elapsed time: on a busy machine the wall clock also counts other processes.
    const start = process.cpuUsage();
    for (let i = 0; i < runs; i += 1) validateCard(message, NOW);
    const used = process.cpuUsage(start);
    const microseconds = (used.user + used.system) / runs;
    // Typically a few µs; compiling the schema per call would take milliseconds.
    expect(microseconds).toBeLessThan(100);
  });
});
