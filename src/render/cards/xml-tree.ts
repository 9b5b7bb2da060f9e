import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { CardSyntaxError } from '../errors/card-syntax-error.js';
import { lineColumn } from './line-column.js';

/** A parsed XML element with entity references already decoded. */
export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly XmlChild[];
  /** Offset of the element's `<` in the source, for error positions. */
  readonly offset: number;
}
export type XmlChild = XmlElement | { readonly text: string };

export const isElement = (child: XmlChild): child is XmlElement => 'name' in child;

/**
 * fast-xml-parser is told to expand nothing (`processEntities: false`): external and internal
 * entities are the XML attack surface (XXE, billion laughs). A DOCTYPE, the only place entities
 * can be declared, is refused before parsing; the five predefined entities and character
 * references are decoded here, and any other `&name;` is an error.
 */
const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  allowBooleanAttributes: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
  htmlEntities: false,
  cdataPropName: '#cdata',
  ignoreDeclaration: true,
  ignorePiTags: true,
  captureMetaData: true,
});
// Typed as the global `Symbol` interface by the library; it is a symbol at run time.
const META = XMLParser.getMetaDataSymbol() as unknown as symbol;

const PREDEFINED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const REFERENCE = /&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z_][\w.-]*);/g;

export function parseXmlTree(text: string): XmlElement {
  const doctype = /<!(DOCTYPE|ENTITY)/i.exec(text);
  if (doctype) {
    throw new CardSyntaxError(
      'xml',
      `<!${doctype[1]?.toUpperCase()} is not allowed (no DTDs or entity declarations)`,
      lineColumn(text, doctype.index),
    );
  }
  const verdict = XMLValidator.validate(text, { allowBooleanAttributes: false });
  if (verdict !== true) {
    throw new CardSyntaxError('xml', verdict.err.msg, { line: verdict.err.line, column: verdict.err.col });
  }
  const roots = toChildren(parser.parse(text) as unknown[], text, 0);
  const elements = roots.filter(isElement);
  const stray = roots.find((child) => !isElement(child) && child.text.trim() !== '');
  if (stray || elements.length !== 1) {
    const at = elements[1]?.offset ?? 0;
    throw new CardSyntaxError('xml', 'the document must have exactly one root element', lineColumn(text, at));
  }
  return elements[0] as XmlElement;
}

function toChildren(nodes: readonly unknown[], source: string, parentOffset: number): XmlChild[] {
  const children: XmlChild[] = [];
  for (const node of nodes as Record<string | symbol, unknown>[]) {
    const name = Object.keys(node).find((key) => key !== ':@');
    if (name === undefined) continue;
    const value = node[name];
    if (name === '#text') {
      children.push({ text: decode(String(value), source, parentOffset) });
    } else if (name === '#cdata') {
      // CDATA is literal: no entity decoding.
      const parts = value as { '#text'?: unknown }[];
      children.push({ text: parts.map((part) => String(part['#text'] ?? '')).join('') });
    } else {
      const meta = node[META] as { startIndex?: number } | undefined;
      const offset = meta?.startIndex ?? parentOffset;
      const rawAttributes = (node[':@'] ?? {}) as Record<string, unknown>;
      const attributes: Record<string, string> = {};
      for (const [key, raw] of Object.entries(rawAttributes))
        attributes[key] = decode(String(raw), source, offset);
      children.push({ name, attributes, children: toChildren(value as unknown[], source, offset), offset });
    }
  }
  return children;
}

function decode(raw: string, source: string, offset: number): string {
  return raw.replace(REFERENCE, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      if (code > 0x10ffff) {
        throw new CardSyntaxError('xml', `${whole} is not a character`, lineColumn(source, offset));
      }
      return String.fromCodePoint(code);
    }
    const char = PREDEFINED[ref];
    if (char === undefined) {
      throw new CardSyntaxError(
        'xml',
        `unknown entity ${whole} (only &lt; &gt; &amp; &quot; &apos; and &#...; are allowed)`,
        lineColumn(source, offset),
      );
    }
    return char;
  });
}
