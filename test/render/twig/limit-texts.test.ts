import { describe, expect, it } from 'vitest';
import { TemplateLimitError } from '../../../src/render/errors/template-limit-error.js';
import { compileTemplate } from '../../../src/render/index.js';
import type { RenderLimits } from '../../../src/render/limits.js';

/** Each resource bound's message in the reader's language: Herald's own texts, not PHP's. */
function limitError(source: string, limits: Partial<RenderLimits> = {}): TemplateLimitError {
  try {
    compileTemplate(source, { limits }).render({}, {});
  } catch (err) {
    if (err instanceof TemplateLimitError) return err;
    throw err;
  }
  throw new Error('no limit error');
}

/** Latin words left in a Chinese text, less the bound's own name (which stays as it is). */
const latinWords = (text: string, limit: string): string[] =>
  text.replace(limit, '').match(/[A-Za-z]{2,}/g) ?? [];

describe('resource-limit messages', () => {
  const cases: Array<[string, string, Partial<RenderLimits>, string]> = [
    [
      'maxSteps',
      '{% for i in 1..50 %}{{ i }}{% endfor %}',
      { maxSteps: 10 },
      'the render took more than 10 steps',
    ],
    [
      'maxStringLength',
      "{{ '%20s'|format('a') }}",
      { maxStringLength: 8 },
      'a string would be longer than 8 characters',
    ],
    [
      'maxArrayLength',
      '{{ range(1, 50)|length }}',
      { maxArrayLength: 10 },
      'an array would hold more than 10 elements',
    ],
    [
      'maxOutputLength',
      "{{ 'abcdefghij' }}",
      { maxOutputLength: 5 },
      'the output is longer than 5 characters',
    ],
    [
      'maxMacroDepth',
      '{% macro m(n) %}{{ _self.m(n + 1) }}{% endmacro %}{{ _self.m(1) }}',
      { maxMacroDepth: 3 },
      'macro calls nest deeper than 3',
    ],
    [
      'maxNestingDepth',
      '{{ ((((((1)))))) }}',
      { maxNestingDepth: 3 },
      'Expressions nest deeper than 3 levels.',
    ],
    [
      'maxNestingDepth',
      '{% if 1 %}{% if 1 %}{% if 1 %}{% if 1 %}x{% endif %}{% endif %}{% endif %}{% endif %}',
      { maxNestingDepth: 2 },
      'Tags nest deeper than 2 levels.',
    ],
    [
      'maxTemplateLength',
      'x'.repeat(20),
      { maxTemplateLength: 10 },
      'the template is longer than 10 characters',
    ],
  ];

  for (const [limit, source, limits, english] of cases) {
    it(`${limit}: ${english}`, () => {
      const err = limitError(source, limits);
      expect(err.limit).toBe(limit);
      // English as before; the detail and data keep it.
      expect(err.localizedMessage('en-US')).toBe(`Template exceeded a resource limit (${limit}): ${english}`);
      expect(err.detail).toBe(english);
      const zh = err.localizedMessage('zh-CN');
      expect(zh.startsWith(`模板超出资源限制（${limit}）：`)).toBe(true);
      expect(latinWords(zh, limit), zh).toEqual([]);
      // A render thread's copy (serialised, revived) keeps both languages.
      const revived = structuredClone({ params: err.params });
      expect((revived.params.detail as Record<string, string>)['zh-CN']).toBe(
        zh.split('：').slice(1).join('：'),
      );
    });
  }
});
