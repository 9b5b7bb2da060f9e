import { Ajv, type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv';
import { type LocalizedText, ValidationError } from '../errors/index.js';

/*
 * Request validation: every schema is compiled once, on its first use (compiling all of them
 * at load was a large part of a web process's start), and the first failure
 * becomes a ValidationError that names the field and the rule in both languages. Unknown
 * fields are allowed by the schemas (clients may send more) and ignored by handlers, which
 * copy only the fields they know.
 */
const ajv = new Ajv({
  allErrors: false,
  verbose: true,
  strict: true,
  allowUnionTypes: true,
  coerceTypes: false,
});
/**
 * `x-pattern`: what a `pattern` asks for, in each language ({'zh-CN', 'en-US'}), named in its
 * rule ("has an invalid format (an http(s) URL)"). An annotation: it validates nothing.
 */
ajv.addKeyword({ keyword: 'x-pattern', schemaType: 'object' });

/** The `x-pattern` annotation of a schema, when it has one in both languages. */
function patternName(schema: Record<string, unknown>): LocalizedText | undefined {
  const named = schema['x-pattern'] as Partial<Record<string, unknown>> | undefined;
  return typeof named?.['zh-CN'] === 'string' && typeof named['en-US'] === 'string'
    ? (named as LocalizedText)
    : undefined;
}

const TYPE_NAMES: Readonly<Record<string, LocalizedText>> = {
  string: { 'zh-CN': '字符串', 'en-US': 'a string' },
  integer: { 'zh-CN': '整数', 'en-US': 'an integer' },
  number: { 'zh-CN': '数字', 'en-US': 'a number' },
  boolean: { 'zh-CN': '布尔值', 'en-US': 'a boolean' },
  object: { 'zh-CN': '对象', 'en-US': 'an object' },
  array: { 'zh-CN': '数组', 'en-US': 'an array' },
};

const typeName = (t: unknown): LocalizedText => {
  const names = (Array.isArray(t) ? t : [t]).map(
    (x) => TYPE_NAMES[String(x)] ?? { 'zh-CN': String(x), 'en-US': String(x) },
  );
  return {
    'zh-CN': names.map((n) => n['zh-CN']).join('或'),
    'en-US': names.map((n) => n['en-US']).join(' or '),
  };
};

/** "/img_list/0/id" -> "img_list[0].id" */
function fieldOf(err: ErrorObject): string {
  const parts = err.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (err.keyword === 'required') parts.push(String(err.params.missingProperty));
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

function ruleOf(err: ErrorObject): LocalizedText {
  const parent = (err.parentSchema ?? {}) as Record<string, unknown>;
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'required':
      return { 'zh-CN': '为必填项', 'en-US': 'is required' };
    case 'type': {
      const t = typeName(p.type);
      return { 'zh-CN': `必须是${t['zh-CN']}`, 'en-US': `must be ${t['en-US']}` };
    }
    case 'minimum':
    case 'maximum':
      if (parent.minimum !== undefined && parent.maximum !== undefined) {
        return {
          'zh-CN': `必须在 ${parent.minimum} 到 ${parent.maximum} 之间`,
          'en-US': `must be from ${parent.minimum} to ${parent.maximum}`,
        };
      }
      return err.keyword === 'minimum'
        ? { 'zh-CN': `不能小于 ${p.limit}`, 'en-US': `must be at least ${p.limit}` }
        : { 'zh-CN': `不能大于 ${p.limit}`, 'en-US': `must be at most ${p.limit}` };
    case 'minLength':
      return p.limit === 1
        ? { 'zh-CN': '不能为空', 'en-US': 'must not be empty' }
        : { 'zh-CN': `至少 ${p.limit} 个字符`, 'en-US': `must be at least ${p.limit} characters` };
    case 'maxLength':
      return { 'zh-CN': `最多 ${p.limit} 个字符`, 'en-US': `must be at most ${p.limit} characters` };
    case 'minItems':
      return { 'zh-CN': `至少 ${p.limit} 项`, 'en-US': `must have at least ${p.limit} items` };
    case 'maxItems':
      return { 'zh-CN': `最多 ${p.limit} 项`, 'en-US': `must have at most ${p.limit} items` };
    case 'enum': {
      const values = (p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ');
      return { 'zh-CN': `必须是以下值之一：${values}`, 'en-US': `must be one of ${values}` };
    }
    case 'pattern': {
      const named = patternName(parent);
      return {
        'zh-CN': `格式不正确${named ? `（${named['zh-CN']}）` : ''}`,
        'en-US': `has an invalid format${named ? ` (${named['en-US']})` : ''}`,
      };
    }
    default:
      return { 'zh-CN': `不符合规则 ${err.keyword}`, 'en-US': `breaks the rule "${err.keyword}"` };
  }
}

export type Validator<T> = (input: unknown) => T;

/** Every validator made so far, to compile them all at once (compileEveryValidator). */
const made: Array<() => unknown> = [];

export function compileValidator<T>(schema: JSONSchemaType<T> | Record<string, unknown>): Validator<T> {
  let check: ValidateFunction<T> | undefined;
  const compiled = (): ValidateFunction<T> => {
    if (check === undefined) check = ajv.compile<T>(schema);
    return check;
  };
  made.push(compiled);
  return (input: unknown): T => {
    const valid = compiled();
    if (valid(input)) return input;
    return fail(valid);
  };
}

/** The first error of a failed check as a ValidationError. */
function fail(check: ValidateFunction): never {
  const err = check.errors?.[0];
  if (!err) throw new ValidationError('', { 'zh-CN': '输入无效', 'en-US': 'invalid input' });
  throw new ValidationError(fieldOf(err), ruleOf(err));
}

/**
 * Compiles every validator made so far (strict mode throws on a schema mistake) and says how many
 * there are: a test's check that no schema waits to fail on its first request.
 */
export function compileEveryValidator(): number {
  for (const compile of made) compile();
  return made.length;
}

/** A numeric-string id as the platform writes them; also the shape of user ids. */
export const idSchema = { type: 'string', minLength: 1, maxLength: 64 } as const;
