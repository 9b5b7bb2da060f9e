import { translator } from '../i18n.ts';

/*
 * What a Herald template may name, for completion: the filters, functions and tests Herald's
 * Twig supports (src/render/twig/filters, functions.ts), the tags of its parser, and the six
 * methods of the PLATFORM object (alias KOOK; spec 2.4, src/render/platform.ts). The lists are
 * copied rather than imported so the console does not bundle the renderer; a unit test
 * (test/console/twig-vocabulary.test.tsx) holds them equal to the renderer's own tables.
 */

/** Each filter with its parameter names (the value being filtered comes first and is not listed). */
export const FILTER_PARAMS: Readonly<Record<string, readonly string[]>> = {
  abs: [],
  batch: ['size', 'fill', 'preserve_keys'],
  capitalize: [],
  column: ['name', 'index'],
  convert_encoding: ['to', 'from'],
  date: ['format', 'timezone'],
  date_modify: ['modifier'],
  default: ['default'],
  e: ['strategy', 'charset', 'autoescape'],
  escape: ['strategy', 'charset', 'autoescape'],
  filter: ['arrow'],
  first: [],
  format: [],
  join: ['glue', 'and'],
  json_encode: ['flags', 'depth'],
  json_escape: [],
  keys: [],
  kmd_escape: [],
  last: [],
  length: [],
  lower: [],
  map: ['arrow'],
  merge: ['arr2'],
  nl2br: [],
  number_format: ['decimal', 'decimal_point', 'thousand_sep'],
  raw: [],
  reduce: ['arrow', 'initial'],
  replace: ['from'],
  reverse: ['preserve_keys'],
  round: ['precision', 'method'],
  slice: ['start', 'length', 'preserve_keys'],
  sort: ['arrow'],
  spaceless: [],
  split: ['delimiter', 'limit'],
  striptags: ['allowable_tags'],
  title: [],
  trim: ['character_mask', 'side'],
  upper: [],
  url_encode: [],
  yaml_escape: ['mode'],
};

/** The platform's own filters (spec 2.4): listed first, as a template's sender strings need them. */
export const PLATFORM_FILTERS = ['json_escape', 'yaml_escape', 'kmd_escape'] as const;

export const FUNCTION_PARAMS: Readonly<Record<string, readonly string[]>> = {
  attribute: ['object', 'attribute', 'arguments'],
  constant: ['constant', 'object'],
  cycle: ['values', 'position'],
  date: ['date', 'timezone'],
  max: ['...values'],
  min: ['...values'],
  random: ['values', 'max'],
  range: ['low', 'high', 'step'],
};

/** Tests, written after `is` (`is empty`, `is divisible by(3)`). */
export const TEST_PARAMS: Readonly<Record<string, readonly string[]>> = {
  constant: ['constant', 'object'],
  'divisible by': ['num'],
  empty: [],
  even: [],
  iterable: [],
  none: [],
  null: [],
  odd: [],
  'same as': ['compare'],
};

/** Tags that open a `{% %}` block, and the tags that close or continue them. */
export const TAGS = [
  'if',
  'elseif',
  'else',
  'endif',
  'for',
  'endfor',
  'set',
  'endset',
  'with',
  'endwith',
  'apply',
  'endapply',
  'macro',
  'endmacro',
  'do',
  'import',
  'from',
  'autoescape',
  'endautoescape',
  'block',
  'endblock',
  'flush',
  'deprecated',
  'verbatim',
  'endverbatim',
] as const;

/** The global objects: `data` (the input) and PLATFORM, also called KOOK. */
export const PLATFORM_OBJECTS = ['PLATFORM', 'KOOK'] as const;

export type PlatformMethod = 'getGuild' | 'getChannel' | 'getSender' | 'getTargetUser' | 'getQuote' | 'image';

/** The methods of PLATFORM with their parameters (names as the spec gives them). */
export const PLATFORM_METHOD_PARAMS: Readonly<Record<PlatformMethod, readonly string[]>> = {
  getGuild: ['guild_id'],
  getChannel: [],
  getSender: [],
  getTargetUser: [],
  getQuote: [],
  image: ['url', 'defaultUrl'],
};

const t = translator({
  'zh-CN': {
    json_escape: '转义文本，使其中的 JSON 语法不会破坏消息（JSON 卡片模板的字符串中使用）',
    yaml_escape: '转义文本，使其中的 YAML 语法不会破坏消息；参数 0 为双引号字符串转义（默认），1 为单引号',
    kmd_escape: '保留名称，目前不做任何处理',
    getGuild: '服务器对象：不带参数时为消息发往的服务器；带 id 时只能读取机器人已加入的服务器',
    getChannel: '消息发往的频道对象',
    getSender: '当前消息的发送者（用户对象）',
    getTargetUser: '目标用户：频道中为临时消息的接收者，私聊中为对方',
    getQuote: '被引用的消息',
    image: '图片地址；url 不是 http(s) 地址时使用 defaultUrl（省略时为平台默认的失败图片）',
    filter: 'Twig 过滤器',
    platformFilter: '平台过滤器',
    function: 'Twig 函数',
    test: 'Twig 测试',
    tag: 'Twig 标签',
    method: 'PLATFORM 方法',
    data: '模板的输入（发送方的 JSON）',
    platform: '平台对象：getGuild、getChannel、getSender、getTargetUser、getQuote、image',
    kook: 'PLATFORM 的别名',
    loop: '循环变量：loop.index、loop.first、loop.last、loop.length…',
  },
  'en-US': {
    json_escape:
      'Escapes text so that JSON syntax in it does not break the message (inside JSON card strings)',
    yaml_escape:
      'Escapes text so that YAML syntax in it does not break the message; argument 0 escapes for a double-quoted string (default), 1 for a single-quoted one',
    kmd_escape: 'A reserved name; currently does nothing',
    getGuild:
      'The server object: without an argument, the server the message goes to; with an id, only servers the bot has joined',
    getChannel: 'The channel the message is sent to',
    getSender: 'The sender of the current message (a user object)',
    getTargetUser:
      'The target user: in a channel, the recipient of a temporary message; in a private chat, the other user',
    getQuote: 'The quoted message',
    image:
      'An image address; defaultUrl when url is not an http(s) address (else the platform’s failure image)',
    filter: 'Twig filter',
    platformFilter: 'platform filter',
    function: 'Twig function',
    test: 'Twig test',
    tag: 'Twig tag',
    method: 'PLATFORM method',
    data: 'The template’s input (the sender’s JSON)',
    platform: 'The platform object: getGuild, getChannel, getSender, getTargetUser, getQuote, image',
    kook: 'Another name for PLATFORM',
    loop: 'The loop variable: loop.index, loop.first, loop.last, loop.length…',
  },
});

export type VocabularyText =
  | (typeof PLATFORM_FILTERS)[number]
  | PlatformMethod
  | 'filter'
  | 'platformFilter'
  | 'function'
  | 'test'
  | 'tag'
  | 'method'
  | 'data'
  | 'platform'
  | 'kook'
  | 'loop';

/** A description or label of the vocabulary, in the current language. */
export const vocabularyText = (key: VocabularyText): string => t(key);

/** `name(a, b)`, or `name` without parameters. */
export const signature = (name: string, params: readonly string[]): string =>
  params.length === 0 ? name : `${name}(${params.join(', ')})`;
