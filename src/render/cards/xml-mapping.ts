/**
 * What the XML form needs to know about the card structure to produce the same JSON as the JSON
 * form: which element names are types, which field holds a type's children, which attributes
 * are numbers or booleans. Attribute types come from this table, never from the value, so
 * `content`-like text such as "123" or "true" stays a string.
 */

/** The root that holds several cards; a single `<card>` root is one card. */
export const XML_CARDS_ROOT = 'cards';

/** Wrappers that fill a field of their parent rather than naming a type. */
export const XML_SLOTS = ['text', 'accessory'] as const;
export type XmlSlot = (typeof XML_SLOTS)[number];

/** Types whose children (in document order) form a list field. */
export const LIST_FIELD: Readonly<Record<string, string>> = {
  card: 'modules',
  context: 'elements',
  'action-group': 'elements',
  'image-group': 'elements',
  container: 'elements',
  paragraph: 'fields',
};

/** Types whose text content is their `content` field. */
export const CONTENT_TYPES: ReadonlySet<string> = new Set(['plain-text', 'kmarkdown']);

/** Types with slots; text directly inside them is their `text` as a bare string. */
export const SLOT_TYPES: Readonly<Record<string, readonly XmlSlot[]>> = {
  header: ['text'],
  section: ['text', 'accessory'],
  button: ['text'],
};

/** Inside a slot type, an unwrapped child of these types fills this slot. */
export const SLOT_OF_CHILD: Readonly<Record<string, XmlSlot>> = {
  'plain-text': 'text',
  kmarkdown: 'text',
  paragraph: 'text',
  image: 'accessory',
  button: 'accessory',
};

/** Types with only attributes (no text, no children). */
const LEAF_TYPES = ['divider', 'file', 'audio', 'video', 'countdown', 'invite', 'image'] as const;

export const XML_TYPES: ReadonlySet<string> = new Set([
  ...Object.keys(LIST_FIELD),
  ...CONTENT_TYPES,
  ...Object.keys(SLOT_TYPES),
  ...LEAF_TYPES,
]);

export type AttributeKind = 'number' | 'boolean';

/** Every non-string field of the card structure; all other attributes are strings. */
export const ATTRIBUTE_KINDS: Readonly<Record<string, Readonly<Record<string, AttributeKind>>>> = {
  paragraph: { cols: 'number' },
  countdown: { endTime: 'number', startTime: 'number' },
  'plain-text': { emoji: 'boolean' },
  image: { circle: 'boolean' },
};

const NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * An attribute's JSON value. A value that does not read as its kind stays a string, so the card
 * validation reports it at its path ("must be an integer") instead of a vaguer XML error.
 */
export function attributeValue(type: string, name: string, raw: string): string | number | boolean {
  const kind = ATTRIBUTE_KINDS[type]?.[name];
  if (kind === 'number' && NUMBER.test(raw.trim())) return Number(raw.trim());
  if (kind === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

/**
 * Text content as it becomes a JSON string. Line ends become \n (as XML requires). A text with
 * a line break loses its leading and trailing lines that hold only spaces or tabs (the
 * indentation around content written on its own lines); everything else is kept exactly,
 * including the indentation of the remaining lines. A one-line text is never trimmed.
 */
export function normalizeText(raw: string): string {
  const text = raw.replace(/\r\n?/g, '\n');
  if (!text.includes('\n')) return text;
  const lines = text.split('\n');
  const blank = (line: string | undefined) => line !== undefined && /^[ \t]*$/.test(line);
  while (blank(lines[0])) lines.shift();
  while (blank(lines[lines.length - 1])) lines.pop();
  return lines.join('\n');
}
