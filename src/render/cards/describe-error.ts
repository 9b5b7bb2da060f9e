import type { ErrorObject } from 'ajv';
import { type LocalizedText, localized } from '../../errors/catalogue.js';
import { type CardPath, instanceSegments } from './card-path.js';
import type { Rule, SchemaNode } from './card-schema.js';
import { imageExtension } from './image-url.js';
import { IMAGE_EXTENSIONS } from './limits.js';

export interface CardProblem {
  /** The offending value; for a missing field, the field (the deepest part that exists is located). */
  readonly at: CardPath;
  readonly rule: LocalizedText;
}

const TYPE_WORDS: Readonly<Record<string, LocalizedText>> = {
  string: localized('必须是字符串', 'must be a string'),
  integer: localized('必须是整数', 'must be an integer'),
  number: localized('必须是数字', 'must be a number'),
  boolean: localized('必须是 true 或 false', 'must be true or false'),
  object: localized('必须是对象', 'must be an object'),
  array: localized('必须是列表', 'must be a list'),
  null: localized('必须是 null', 'must be null'),
};

const REQUIRED = localized('为必填项', 'is required');
const NOT_ALLOWED = localized('不能出现在这里', 'is not allowed here');
const THIS_OBJECT = localized('该对象', 'this object');

const quoteAll = (values: readonly unknown[]): string => values.map((v) => JSON.stringify(v)).join(', ');

const isPair = (rule: Rule): rule is readonly [field: string, rule: LocalizedText] => Array.isArray(rule);

/** `rule` followed by the same words in each language (after a Chinese comma in Chinese). */
const followedBy = (rule: LocalizedText, zh: string, en: string): LocalizedText =>
  localized(`${rule['zh-CN']}，${zh}`, `${rule['en-US']}, ${en}`);

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
    if (params.error === 'tag' && tagValue === undefined) return { at: [...at, 'type'], rule: REQUIRED };
    const tag = JSON.stringify(tagValue);
    const wrongType = custom !== undefined && !isPair(custom) ? custom : NOT_ALLOWED;
    return { at: [...at, 'type'], rule: followedBy(wrongType, `不能是 ${tag}`, `not ${tag}`) };
  }
  if (error.keyword === 'additionalProperties') {
    // The unknown field is the offending value, whichever words describe it.
    const field = String(params.additionalProperty);
    const name = (parent['x-name'] as LocalizedText | undefined) ?? THIS_OBJECT;
    const rule = custom === undefined ? undefined : isPair(custom) ? custom[1] : custom;
    return {
      at: [...at, field],
      rule: rule ?? localized(`${name['zh-CN']}没有这个字段`, `is not a field of ${name['en-US']}`),
    };
  }
  if (custom !== undefined) {
    return isPair(custom) ? { at: [...at, custom[0]], rule: custom[1] } : { at, rule: custom };
  }
  const limit = String(params.limit);
  switch (error.keyword) {
    case 'required':
      return { at: [...at, String(params.missingProperty)], rule: REQUIRED };
    case 'type': {
      const type = String(params.type);
      return { at, rule: TYPE_WORDS[type] ?? localized(`必须是 ${type}`, `must be ${type}`) };
    }
    case 'enum': {
      const values = quoteAll(params.allowedValues as unknown[]);
      return { at, rule: localized(`必须是以下值之一：${values}`, `must be one of ${values}`) };
    }
    case 'const': {
      const value = JSON.stringify(params.allowedValue);
      return { at, rule: localized(`必须是 ${value}`, `must be ${value}`) };
    }
    case 'maxLength':
      return { at, rule: localized(`最多 ${limit} 个字符`, `is at most ${limit} characters`) };
    case 'minLength':
      return { at, rule: localized('不能为空', 'must not be empty') };
    case 'maxItems':
      return { at, rule: localized(`最多 ${limit} 项`, `holds at most ${limit} items`) };
    case 'minItems':
      return { at, rule: localized(`至少 ${limit} 项`, `holds at least ${limit} items`) };
    case 'minimum':
      return { at, rule: localized(`不能小于 ${limit}`, `must be at least ${limit}`) };
    case 'maximum':
      return { at, rule: localized(`不能大于 ${limit}`, `must be at most ${limit}`) };
    case 'imageUrl': {
      const ext = imageExtension(String(error.data));
      return {
        at,
        rule: localized(
          `只允许 ${IMAGE_EXTENSIONS.join('、')} 图片，不能是 .${ext}`,
          `only ${IMAGE_EXTENSIONS.join(', ')} images are allowed, not .${ext}`,
        ),
      };
    }
    default:
      return { at, rule: NOT_ALLOWED };
  }
}
