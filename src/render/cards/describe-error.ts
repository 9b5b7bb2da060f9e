import type { ErrorObject } from 'ajv';
import { type CardPath, instanceSegments } from './card-path.js';
import type { Rule, SchemaNode } from './card-schema.js';
import { imageExtension } from './image-url.js';
import { IMAGE_EXTENSIONS } from './limits.js';

export interface CardProblem {
  /** The offending value; for a missing field, the field (the deepest part that exists is located). */
  readonly at: CardPath;
  readonly rule: string;
}

const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'must be a string',
  integer: 'must be an integer',
  number: 'must be a number',
  boolean: 'must be true or false',
  object: 'must be an object',
  array: 'must be a list',
  null: 'must be null',
};

const quoteAll = (values: readonly unknown[]): string => values.map((v) => JSON.stringify(v)).join(', ');

/**
 * Turns one ajv error into the path and plain-words rule a template author reads. The schema's
 * `x-rules` annotation wins; otherwise a per-keyword sentence built from the error's params.
 */
export function describeError(error: ErrorObject): CardProblem {
  const parent = (error.parentSchema ?? {}) as SchemaNode;
  const at = instanceSegments(error.instancePath);
  const custom = (parent['x-rules'] as Record<string, Rule> | undefined)?.[error.keyword];
  const params = error.params as Record<string, unknown>;

  if (error.keyword === 'discriminator') {
    // `tag` error: `type` is missing or not a string; `mapping`: a type this slot does not take.
    const tagValue = params.tagValue;
    if (params.error === 'tag' && tagValue === undefined) return { at: [...at, 'type'], rule: 'is required' };
    return {
      at: [...at, 'type'],
      rule: `${custom ?? 'is not allowed here'}, not ${JSON.stringify(tagValue)}`,
    };
  }
  if (custom !== undefined) {
    return typeof custom === 'string' ? { at, rule: custom } : { at: [...at, custom[0]], rule: custom[1] };
  }
  const name = typeof parent['x-name'] === 'string' ? parent['x-name'] : 'this object';
  switch (error.keyword) {
    case 'required':
      return { at: [...at, String(params.missingProperty)], rule: 'is required' };
    case 'additionalProperties':
      return { at: [...at, String(params.additionalProperty)], rule: `is not a field of ${name}` };
    case 'type':
      return { at, rule: TYPE_WORDS[String(params.type)] ?? `must be ${String(params.type)}` };
    case 'enum':
      return { at, rule: `must be one of ${quoteAll(params.allowedValues as unknown[])}` };
    case 'const':
      return { at, rule: `must be ${JSON.stringify(params.allowedValue)}` };
    case 'maxLength':
      return { at, rule: `is at most ${String(params.limit)} characters` };
    case 'minLength':
      return { at, rule: 'must not be empty' };
    case 'maxItems':
      return { at, rule: `holds at most ${String(params.limit)} items` };
    case 'minItems':
      return { at, rule: `holds at least ${String(params.limit)} items` };
    case 'minimum':
      return { at, rule: `must be at least ${String(params.limit)}` };
    case 'maximum':
      return { at, rule: `must be at most ${String(params.limit)}` };
    case 'imageUrl':
      return {
        at,
        rule: `only ${IMAGE_EXTENSIONS.join(', ')} images are allowed, not .${imageExtension(String(error.data))}`,
      };
    default:
      return { at, rule: 'is not allowed here' };
  }
}
