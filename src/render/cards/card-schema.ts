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
 * - `x-name`: how an object is called in messages ("a divider module");
 * - `x-rules`: per failing keyword, the plain-words rule to report instead of ajv's text; a pair
 *   `[field, rule]` reports the error on that field of the object rather than on the object;
 * - `imageUrl`: the jpeg/gif/png check on image addresses.
 *
 * Typed unions use ajv's `discriminator` on `type`, so a wrong element is reported as "an
 * action-group holds only button elements" and a wrong field inside a known type as that field's
 * rule, never as a list of oneOf failures.
 */
export type Rule = string | readonly [field: string, rule: string];
export interface SchemaNode {
  readonly [keyword: string]: unknown;
}

const str = { type: 'string' } as const;

/** JSON Schema `if`/`then`, built here once so the linter's thenable warning has one exception. */
function when(condition: SchemaNode, consequence: SchemaNode): SchemaNode {
  // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword, not a promise.
  return { if: condition, then: consequence };
}
const nonEmpty: SchemaNode = { type: 'string', minLength: 1, 'x-rules': { minLength: 'must not be empty' } };
const oneOfEnum = (values: readonly string[]): SchemaNode => ({ type: 'string', enum: values });

/** An object of one `type`; extra keys are refused so typos such as `fallbackurl` are caught. */
function typed(
  type: string,
  name: string,
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
function union(branches: readonly SchemaNode[], wrongType: string, notObject: string): SchemaNode {
  return {
    type: 'object',
    required: ['type'],
    discriminator: { propertyName: 'type' },
    oneOf: branches,
    'x-rules': { type: notObject, discriminator: wrongType },
  };
}

/** Where a plain-text element is allowed, a bare string (with the same length limit) is too. */
function orBareString(maxLength: number, lengthRule: string, objectSchema: SchemaNode): SchemaNode {
  return {
    ...when({ type: 'string' }, { maxLength, 'x-rules': { maxLength: lengthRule } }),
    else: objectSchema,
  };
}

const plainTextRule = (max: number) => `plain-text content is at most ${max} characters`;
const plainText = (max: number): SchemaNode =>
  typed('plain-text', 'a plain-text element', ['content'], {
    content: { type: 'string', maxLength: max, 'x-rules': { maxLength: plainTextRule(max) } },
    emoji: { type: 'boolean' },
  });
const kmarkdown = typed('kmarkdown', 'a kmarkdown element', ['content'], {
  content: {
    type: 'string',
    maxLength: KMARKDOWN_MAX,
    'x-rules': { maxLength: `kmarkdown content is at most ${KMARKDOWN_MAX} characters` },
  },
});
const imageUrl: SchemaNode = { ...nonEmpty, imageUrl: true };
const image = typed('image', 'an image element', ['src'], {
  src: imageUrl,
  alt: str,
  size: oneOfEnum(SIZES),
  circle: { type: 'boolean' },
  fallbackUrl: imageUrl,
});

/** plain-text (or a bare string) and kmarkdown: the text of buttons, context and paragraph fields. */
const text = (wrongType: string): SchemaNode =>
  orBareString(
    PLAIN_TEXT_MAX,
    plainTextRule(PLAIN_TEXT_MAX),
    union([plainText(PLAIN_TEXT_MAX), kmarkdown], wrongType, 'must be a string or a text element'),
  );

const button = typed('button', 'a button element', ['text'], {
  theme: oneOfEnum(BUTTON_THEMES),
  value: str,
  click: oneOfEnum(BUTTON_CLICKS),
  text: text('a button text is plain-text or kmarkdown'),
});

const paragraph = typed('paragraph', 'a paragraph', ['cols', 'fields'], {
  cols: {
    type: 'integer',
    minimum: PARAGRAPH_COLS_MIN,
    maximum: PARAGRAPH_COLS_MAX,
    'x-rules': {
      minimum: `a paragraph has ${PARAGRAPH_COLS_MIN} to ${PARAGRAPH_COLS_MAX} cols`,
      maximum: `a paragraph has ${PARAGRAPH_COLS_MIN} to ${PARAGRAPH_COLS_MAX} cols`,
    },
  },
  fields: {
    type: 'array',
    maxItems: PARAGRAPH_FIELDS_MAX,
    items: text('a paragraph holds only plain-text and kmarkdown fields'),
    'x-rules': {
      type: 'must be a list of plain-text or kmarkdown fields',
      maxItems: `a paragraph holds at most ${PARAGRAPH_FIELDS_MAX} fields`,
    },
  },
});

const images = (module: string): SchemaNode => ({
  type: 'array',
  minItems: IMAGES_MIN,
  maxItems: IMAGES_MAX,
  items: union([image], `${module} holds only image elements`, 'must be an image element'),
  'x-rules': {
    type: 'must be a list of image elements',
    minItems: `${module} holds at least ${IMAGES_MIN} image`,
    maxItems: `${module} holds at most ${IMAGES_MAX} images`,
  },
});

const media = (type: string, withCover: boolean): SchemaNode =>
  typed(type, `a ${type} module`, ['src'], {
    src: nonEmpty,
    title: str,
    ...(withCover ? { cover: str } : {}),
  });

const timestamp: SchemaNode = {
  type: 'integer',
  minimum: 0,
  'x-rules': { type: 'must be a millisecond timestamp (an integer)', minimum: 'must not be negative' },
};

const modules: readonly SchemaNode[] = [
  typed('header', 'a header module', ['text'], {
    text: orBareString(
      HEADER_TEXT_MAX,
      `header text is at most ${HEADER_TEXT_MAX} characters`,
      union(
        [
          typed('plain-text', 'a plain-text element', ['content'], {
            content: {
              type: 'string',
              maxLength: HEADER_TEXT_MAX,
              'x-rules': { maxLength: `header text is at most ${HEADER_TEXT_MAX} characters` },
            },
            emoji: { type: 'boolean' },
          }),
        ],
        'a header text is plain-text',
        'must be a string or a plain-text element',
      ),
    ),
  }),
  typed(
    'section',
    'a section module',
    ['text'],
    {
      text: orBareString(
        PLAIN_TEXT_MAX,
        plainTextRule(PLAIN_TEXT_MAX),
        union(
          [plainText(PLAIN_TEXT_MAX), kmarkdown, paragraph],
          'a section text is plain-text, kmarkdown or paragraph',
          'must be a string or a text element',
        ),
      ),
      accessory: union([image, button], 'a section accessory is an image or a button', 'must be an element'),
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
        'x-rules': { not: ['mode', 'a button accessory cannot be on the left (use mode right)'] },
      },
    ),
  ),
  typed('image-group', 'an image-group module', ['elements'], { elements: images('an image-group') }),
  typed('container', 'a container module', ['elements'], { elements: images('a container') }),
  typed('action-group', 'an action-group module', ['elements'], {
    elements: {
      type: 'array',
      minItems: BUTTONS_MIN,
      maxItems: BUTTONS_MAX,
      items: union([button], 'an action-group holds only button elements', 'must be a button element'),
      'x-rules': {
        type: 'must be a list of button elements',
        minItems: `an action-group holds at least ${BUTTONS_MIN} button`,
        maxItems: `an action-group holds at most ${BUTTONS_MAX} buttons`,
      },
    },
  }),
  typed('context', 'a context module', ['elements'], {
    elements: {
      type: 'array',
      maxItems: CONTEXT_ELEMENTS_MAX,
      items: orBareString(
        PLAIN_TEXT_MAX,
        plainTextRule(PLAIN_TEXT_MAX),
        union(
          [plainText(PLAIN_TEXT_MAX), kmarkdown, image],
          'a context holds only plain-text, kmarkdown and image elements',
          'must be a string or an element',
        ),
      ),
      'x-rules': {
        type: 'must be a list of elements',
        maxItems: `a context holds at most ${CONTEXT_ELEMENTS_MAX} elements`,
      },
    },
  }),
  typed('divider', 'a divider module (it has no fields)', [], {}),
  media('file', false),
  media('audio', true),
  media('video', false),
  typed(
    'countdown',
    'a countdown module',
    ['endTime', 'mode'],
    { endTime: timestamp, startTime: timestamp, mode: oneOfEnum(COUNTDOWN_MODES) },
    when(
      { not: { required: ['mode'], properties: { mode: { const: 'second' } } } },
      {
        not: { required: ['startTime'] },
        'x-rules': { not: ['startTime', 'is allowed only with mode second'] },
      },
    ),
  ),
  typed('invite', 'an invite module', ['code'], { code: nonEmpty }),
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
        enum: `a card with theme invisible holds only ${INVISIBLE_MODULES.join(', ')} modules`,
      },
    },
  },
  ...when(
    { required: ['type'], properties: { type: { const: 'section' } } },
    {
      not: { required: ['accessory'] },
      'x-rules': { not: ['accessory', 'a section in a card with theme invisible has no accessory'] },
    },
  ),
};

const card = typed(
  'card',
  'a card',
  ['modules'],
  {
    theme: oneOfEnum(CARD_THEMES),
    color: {
      type: 'string',
      pattern: COLOR_PATTERN,
      'x-rules': { pattern: 'must be a hex colour such as #aaaaaa' },
    },
    size: oneOfEnum(SIZES),
    modules: {
      type: 'array',
      items: union(
        modules,
        `must be a module type (${modules.map((m) => moduleType(m)).join(', ')})`,
        'must be a module object',
      ),
      'x-rules': { type: 'must be a list of modules' },
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
    ...union([card], 'must be a card (type "card")', 'must be a card object'),
  },
  'x-rules': {
    type: 'a card message must be a list of cards (wrap a single card in [ ])',
    minItems: 'a card message holds at least 1 card',
    maxItems: `a card message holds at most ${MAX_CARDS} cards`,
  },
};
