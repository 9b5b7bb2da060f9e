import { type LocalizedText, localized } from '../../errors/catalogue.js';
import {
  BUTTON_CLICKS,
  BUTTON_THEMES,
  BUTTONS_MAX,
  BUTTONS_MIN,
  CARD_THEMES,
  COLOR_PATTERN,
  CONTEXT_ELEMENTS_MAX,
  COUNTDOWN_MODES,
  HEADER_TEXT_MAX,
  IMAGES_MAX,
  IMAGES_MIN,
  INVISIBLE_MODULES,
  KMARKDOWN_MAX,
  MAX_CARDS,
  PARAGRAPH_COLS_MAX,
  PARAGRAPH_COLS_MIN,
  PARAGRAPH_FIELDS_MAX,
  PLAIN_TEXT_MAX,
  SECTION_MODES,
  SIZES,
} from './limits.js';

/**
 * The JSON Schema of a card message. Besides standard keywords it uses three annotations that
 * `validate-card.ts` registers with ajv:
 * - `x-name`: how an object is called in messages ("a section module"), in each language;
 * - `x-rules`: per failing keyword, the plain-words rule to report instead of ajv's text, in each
 *   language; a pair `[field, rule]` reports the error on that field of the object rather than
 *   on the object, and for `additionalProperties` the rule is reported on the unknown field;
 * - `imageUrl`: the jpeg/gif/png check on image addresses.
 *
 * Typed unions use ajv's `discriminator` on `type`, so a wrong element is reported as "an
 * action-group holds only button elements" and a wrong field inside a known type as that field's
 * rule, never as a list of oneOf failures.
 */
export type Rule = LocalizedText | readonly [field: string, rule: LocalizedText];
export interface SchemaNode {
  readonly [keyword: string]: unknown;
}

const str = { type: 'string' } as const;

/** JSON Schema `if`/`then`, built here once so the linter's thenable warning has one exception. */
function when(condition: SchemaNode, consequence: SchemaNode): SchemaNode {
  // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword, not a promise.
  return { if: condition, then: consequence };
}
const nonEmpty: SchemaNode = {
  type: 'string',
  minLength: 1,
  'x-rules': { minLength: localized('不能为空', 'must not be empty') },
};
const oneOfEnum = (values: readonly string[]): SchemaNode => ({ type: 'string', enum: values });

/** An object of one `type`; extra keys are refused so typos such as `fallbackurl` are caught. */
function typed(
  type: string,
  name: LocalizedText,
  required: readonly string[],
  properties: Record<string, SchemaNode>,
  extra: SchemaNode = {},
): SchemaNode {
  return {
    type: 'object',
    'x-name': name,
    required: ['type', ...required],
    additionalProperties: false,
    properties: { type: { const: type }, ...properties },
    ...extra,
  };
}

/**
 * A value that must be an object of one of `branches`' types. `holds` completes the sentence for
 * a wrong type ("a context holds only plain-text, kmarkdown and image elements").
 */
function union(
  branches: readonly SchemaNode[],
  wrongType: LocalizedText,
  notObject: LocalizedText,
): SchemaNode {
  return {
    type: 'object',
    required: ['type'],
    discriminator: { propertyName: 'type' },
    oneOf: branches,
    'x-rules': { type: notObject, discriminator: wrongType },
  };
}

/** Where a plain-text element is allowed, a bare string (with the same length limit) is too. */
function orBareString(maxLength: number, lengthRule: LocalizedText, objectSchema: SchemaNode): SchemaNode {
  return {
    ...when({ type: 'string' }, { maxLength, 'x-rules': { maxLength: lengthRule } }),
    else: objectSchema,
  };
}

const plainTextRule = (max: number) =>
  localized(`plain-text 内容最多 ${max} 个字符`, `plain-text content is at most ${max} characters`);
const plainText = (max: number): SchemaNode =>
  typed('plain-text', localized('plain-text 元素', 'a plain-text element'), ['content'], {
    content: { type: 'string', maxLength: max, 'x-rules': { maxLength: plainTextRule(max) } },
    emoji: { type: 'boolean' },
  });
const kmarkdown = typed('kmarkdown', localized('kmarkdown 元素', 'a kmarkdown element'), ['content'], {
  content: {
    type: 'string',
    maxLength: KMARKDOWN_MAX,
    'x-rules': {
      maxLength: localized(
        `kmarkdown 内容最多 ${KMARKDOWN_MAX} 个字符`,
        `kmarkdown content is at most ${KMARKDOWN_MAX} characters`,
      ),
    },
  },
});
const imageUrl: SchemaNode = { ...nonEmpty, imageUrl: true };
const image = typed('image', localized('image 元素', 'an image element'), ['src'], {
  src: imageUrl,
  alt: str,
  size: oneOfEnum(SIZES),
  circle: { type: 'boolean' },
  fallbackUrl: imageUrl,
});

/** plain-text (or a bare string) and kmarkdown: the text of buttons, context and paragraph fields. */
const textOrElement = localized('必须是字符串或文本元素', 'must be a string or a text element');
const text = (wrongType: LocalizedText): SchemaNode =>
  orBareString(
    PLAIN_TEXT_MAX,
    plainTextRule(PLAIN_TEXT_MAX),
    union([plainText(PLAIN_TEXT_MAX), kmarkdown], wrongType, textOrElement),
  );

const button = typed('button', localized('button 元素', 'a button element'), ['text'], {
  theme: oneOfEnum(BUTTON_THEMES),
  value: str,
  click: oneOfEnum(BUTTON_CLICKS),
  text: text(
    localized('button 的文本只能是 plain-text 或 kmarkdown', 'a button text is plain-text or kmarkdown'),
  ),
});

const colsRule = localized(
  `paragraph 的 cols 必须在 ${PARAGRAPH_COLS_MIN} 到 ${PARAGRAPH_COLS_MAX} 之间`,
  `a paragraph has ${PARAGRAPH_COLS_MIN} to ${PARAGRAPH_COLS_MAX} cols`,
);
const paragraph = typed('paragraph', localized('paragraph 元素', 'a paragraph'), ['cols', 'fields'], {
  cols: {
    type: 'integer',
    minimum: PARAGRAPH_COLS_MIN,
    maximum: PARAGRAPH_COLS_MAX,
    'x-rules': { minimum: colsRule, maximum: colsRule },
  },
  fields: {
    type: 'array',
    maxItems: PARAGRAPH_FIELDS_MAX,
    items: text(
      localized(
        'paragraph 只能包含 plain-text 和 kmarkdown 字段',
        'a paragraph holds only plain-text and kmarkdown fields',
      ),
    ),
    'x-rules': {
      type: localized(
        '必须是 plain-text 或 kmarkdown 字段的列表',
        'must be a list of plain-text or kmarkdown fields',
      ),
      maxItems: localized(
        `paragraph 最多包含 ${PARAGRAPH_FIELDS_MAX} 个字段`,
        `a paragraph holds at most ${PARAGRAPH_FIELDS_MAX} fields`,
      ),
    },
  },
});

/** The image list of a module; `module` is its name with an article ("an image-group"). */
const images = (type: string, module: string): SchemaNode => ({
  type: 'array',
  minItems: IMAGES_MIN,
  maxItems: IMAGES_MAX,
  items: union(
    [image],
    localized(`${type} 只能包含 image 元素`, `${module} holds only image elements`),
    localized('必须是 image 元素', 'must be an image element'),
  ),
  'x-rules': {
    type: localized('必须是 image 元素的列表', 'must be a list of image elements'),
    minItems: localized(
      `${type} 至少包含 ${IMAGES_MIN} 个 image 元素`,
      `${module} holds at least ${IMAGES_MIN} image`,
    ),
    maxItems: localized(
      `${type} 最多包含 ${IMAGES_MAX} 个 image 元素`,
      `${module} holds at most ${IMAGES_MAX} images`,
    ),
  },
});

const media = (type: string, withCover: boolean): SchemaNode =>
  typed(type, localized(`${type} 模块`, `a ${type} module`), ['src'], {
    src: nonEmpty,
    title: str,
    ...(withCover ? { cover: str } : {}),
  });

const timestamp: SchemaNode = {
  type: 'integer',
  minimum: 0,
  'x-rules': {
    type: localized('必须是毫秒时间戳（整数）', 'must be a millisecond timestamp (an integer)'),
    minimum: localized('不能为负数', 'must not be negative'),
  },
};

const headerTextRule = localized(
  `header 文本最多 ${HEADER_TEXT_MAX} 个字符`,
  `header text is at most ${HEADER_TEXT_MAX} characters`,
);

const modules: readonly SchemaNode[] = [
  typed('header', localized('header 模块', 'a header module'), ['text'], {
    text: orBareString(
      HEADER_TEXT_MAX,
      headerTextRule,
      union(
        [
          typed('plain-text', localized('plain-text 元素', 'a plain-text element'), ['content'], {
            content: {
              type: 'string',
              maxLength: HEADER_TEXT_MAX,
              'x-rules': { maxLength: headerTextRule },
            },
            emoji: { type: 'boolean' },
          }),
        ],
        localized('header 的文本只能是 plain-text', 'a header text is plain-text'),
        localized('必须是字符串或 plain-text 元素', 'must be a string or a plain-text element'),
      ),
    ),
  }),
  typed(
    'section',
    localized('section 模块', 'a section module'),
    ['text'],
    {
      text: orBareString(
        PLAIN_TEXT_MAX,
        plainTextRule(PLAIN_TEXT_MAX),
        union(
          [plainText(PLAIN_TEXT_MAX), kmarkdown, paragraph],
          localized(
            'section 的文本只能是 plain-text、kmarkdown 或 paragraph',
            'a section text is plain-text, kmarkdown or paragraph',
          ),
          textOrElement,
        ),
      ),
      accessory: union(
        [image, button],
        localized(
          'section 的 accessory 只能是 image 或 button',
          'a section accessory is an image or a button',
        ),
        localized('必须是元素', 'must be an element'),
      ),
      mode: oneOfEnum(SECTION_MODES),
    },
    // A button cannot sit left of the text.
    when(
      { required: ['mode'], properties: { mode: { const: 'left' } } },
      {
        not: {
          required: ['accessory'],
          properties: { accessory: { required: ['type'], properties: { type: { const: 'button' } } } },
        },
        'x-rules': {
          not: [
            'mode',
            localized(
              '作为 accessory 的 button 不能在左侧（请使用 mode right）',
              'a button accessory cannot be on the left (use mode right)',
            ),
          ],
        },
      },
    ),
  ),
  typed('image-group', localized('image-group 模块', 'an image-group module'), ['elements'], {
    elements: images('image-group', 'an image-group'),
  }),
  typed('container', localized('container 模块', 'a container module'), ['elements'], {
    elements: images('container', 'a container'),
  }),
  typed('action-group', localized('action-group 模块', 'an action-group module'), ['elements'], {
    elements: {
      type: 'array',
      minItems: BUTTONS_MIN,
      maxItems: BUTTONS_MAX,
      items: union(
        [button],
        localized('action-group 只能包含 button 元素', 'an action-group holds only button elements'),
        localized('必须是 button 元素', 'must be a button element'),
      ),
      'x-rules': {
        type: localized('必须是 button 元素的列表', 'must be a list of button elements'),
        minItems: localized(
          `action-group 至少包含 ${BUTTONS_MIN} 个 button`,
          `an action-group holds at least ${BUTTONS_MIN} button`,
        ),
        maxItems: localized(
          `action-group 最多包含 ${BUTTONS_MAX} 个 button`,
          `an action-group holds at most ${BUTTONS_MAX} buttons`,
        ),
      },
    },
  }),
  typed('context', localized('context 模块', 'a context module'), ['elements'], {
    elements: {
      type: 'array',
      maxItems: CONTEXT_ELEMENTS_MAX,
      items: orBareString(
        PLAIN_TEXT_MAX,
        plainTextRule(PLAIN_TEXT_MAX),
        union(
          [plainText(PLAIN_TEXT_MAX), kmarkdown, image],
          localized(
            'context 只能包含 plain-text、kmarkdown 和 image 元素',
            'a context holds only plain-text, kmarkdown and image elements',
          ),
          localized('必须是字符串或元素', 'must be a string or an element'),
        ),
      ),
      'x-rules': {
        type: localized('必须是元素的列表', 'must be a list of elements'),
        maxItems: localized(
          `context 最多包含 ${CONTEXT_ELEMENTS_MAX} 个元素`,
          `a context holds at most ${CONTEXT_ELEMENTS_MAX} elements`,
        ),
      },
    },
  }),
  // The note that a divider has no fields at all does not fit into the Chinese sentence built
  // from a name, so the divider says it in a rule of its own.
  typed(
    'divider',
    localized('divider 模块', 'a divider module'),
    [],
    {},
    {
      'x-rules': {
        additionalProperties: localized(
          'divider 模块没有任何字段',
          'is not a field of a divider module (it has no fields)',
        ),
      },
    },
  ),
  media('file', false),
  media('audio', true),
  media('video', false),
  typed(
    'countdown',
    localized('countdown 模块', 'a countdown module'),
    ['endTime', 'mode'],
    { endTime: timestamp, startTime: timestamp, mode: oneOfEnum(COUNTDOWN_MODES) },
    when(
      { not: { required: ['mode'], properties: { mode: { const: 'second' } } } },
      {
        not: { required: ['startTime'] },
        'x-rules': {
          not: ['startTime', localized('只能在 mode second 时使用', 'is allowed only with mode second')],
        },
      },
    ),
  ),
  typed('invite', localized('invite 模块', 'an invite module'), ['code'], { code: nonEmpty }),
];

/** The `type` const of a branch built by `typed`. */
function moduleType(schema: SchemaNode): string {
  const properties = schema.properties as Record<string, { const?: string }>;
  return properties.type?.const ?? '';
}

const invisibleModule: SchemaNode = {
  properties: {
    type: {
      enum: INVISIBLE_MODULES,
      'x-rules': {
        enum: localized(
          `theme invisible 的卡片只能包含 ${INVISIBLE_MODULES.join('、')} 模块`,
          `a card with theme invisible holds only ${INVISIBLE_MODULES.join(', ')} modules`,
        ),
      },
    },
  },
  ...when(
    { required: ['type'], properties: { type: { const: 'section' } } },
    {
      not: { required: ['accessory'] },
      'x-rules': {
        not: [
          'accessory',
          localized(
            'theme invisible 的卡片中，section 不能有 accessory',
            'a section in a card with theme invisible has no accessory',
          ),
        ],
      },
    },
  ),
};

const moduleTypes = modules.map((m) => moduleType(m));
const card = typed(
  'card',
  localized('卡片', 'a card'),
  ['modules'],
  {
    theme: oneOfEnum(CARD_THEMES),
    color: {
      type: 'string',
      pattern: COLOR_PATTERN,
      'x-rules': {
        pattern: localized('必须是十六进制颜色，如 #aaaaaa', 'must be a hex colour such as #aaaaaa'),
      },
    },
    size: oneOfEnum(SIZES),
    modules: {
      type: 'array',
      items: union(
        modules,
        localized(
          `必须是模块类型（${moduleTypes.join('、')}）`,
          `must be a module type (${moduleTypes.join(', ')})`,
        ),
        localized('必须是模块对象', 'must be a module object'),
      ),
      'x-rules': { type: localized('必须是模块的列表', 'must be a list of modules') },
    },
  },
  when(
    { required: ['theme'], properties: { theme: { const: 'invisible' } } },
    { properties: { modules: { items: invisibleModule } } },
  ),
);

export const CARD_MESSAGE_SCHEMA: SchemaNode = {
  type: 'array',
  minItems: 1,
  maxItems: MAX_CARDS,
  items: {
    ...union(
      [card],
      localized('必须是卡片（type "card"）', 'must be a card (type "card")'),
      localized('必须是卡片对象', 'must be a card object'),
    ),
  },
  'x-rules': {
    type: localized(
      '卡片消息必须是卡片的列表（单张卡片也要用 [ ] 包起来）',
      'a card message must be a list of cards (wrap a single card in [ ])',
    ),
    minItems: localized('卡片消息至少包含 1 张卡片', 'a card message holds at least 1 card'),
    maxItems: localized(
      `卡片消息最多包含 ${MAX_CARDS} 张卡片`,
      `a card message holds at most ${MAX_CARDS} cards`,
    ),
  },
};
