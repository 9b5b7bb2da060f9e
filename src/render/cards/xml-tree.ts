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
 * Deepest element nesting of a card document. Real cards nest a handful of levels; the parser
 * recurses per level, so it has a bound (fast-xml-parser's own default, named here).
 */
export const XML_MAX_DEPTH = 100;

/**
 * fast-xml-parser is told to expand nothing (`processEntities: false`): external and internal
 * entities are the XML attack surface (XXE, billion laughs). A DOCTYPE, the only place entities
 * can be declared, is refused before parsing; the five predefined entities and character
 * references are decoded here, and any other `&name;` is an error.
 */
const parser = new XMLParser({
  maxNestedTags: XML_MAX_DEPTH,
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
      {
        'zh-CN': `不允许使用 <!${doctype[1]?.toUpperCase()}（不支持 DTD 和实体声明）`,
        'en-US': `<!${doctype[1]?.toUpperCase()} is not allowed (no DTDs or entity declarations)`,
      },
      lineColumn(text, doctype.index),
    );
  }
  const verdict = XMLValidator.validate(text, { allowBooleanAttributes: false });
  if (verdict !== true) {
    // fast-xml-parser names no column for a text without any tag (an empty card)
    throw new CardSyntaxError('xml', verdict.err.msg, {
      line: verdict.err.line,
      column: verdict.err.col ?? 1,
    });
  }
  const deep = tooDeepAt(text);
  if (deep >= 0) {
    throw new CardSyntaxError(
      'xml',
      {
        'zh-CN': `元素嵌套超过 ${XML_MAX_DEPTH} 层`,
        'en-US': `elements are nested more than ${XML_MAX_DEPTH} levels deep`,
      },
      lineColumn(text, deep),
    );
  }
  let parsed: unknown[];
  try {
    parsed = parser.parse(text) as unknown[];
  } catch (err) {
    // The validator and the checks above leave the parser nothing to refuse; should it refuse
    // anyway (a future version's new bound), the card is still unreadable, not a server fault.
    throw new CardSyntaxError('xml', err instanceof Error ? err.message : String(err), lineColumn(text, 0));
  }
  const roots = toChildren(parsed, text, 0);
  const elements = roots.filter(isElement);
  const stray = roots.find((child) => !isElement(child) && child.text.trim() !== '');
  if (stray || elements.length !== 1) {
    const at = elements[1]?.offset ?? 0;
    throw new CardSyntaxError(
      'xml',
      { 'zh-CN': '文档必须有且只有一个根元素', 'en-US': 'the document must have exactly one root element' },
      lineColumn(text, at),
    );
  }
  return elements[0] as XmlElement;
}

/**
 * Offset of the first start tag nested deeper than XML_MAX_DEPTH, or -1. Runs on a document the
 * validator accepted, so tags are well formed; comments, CDATA and processing instructions are
 * skipped, and a `>` inside a quoted attribute value does not end its tag.
 */
function tooDeepAt(text: string): number {
  let depth = 0;
  let at = text.indexOf('<');
  while (at >= 0) {
    let next: number;
    if (text.startsWith('<!--', at)) next = text.indexOf('-->', at + 4);
    else if (text.startsWith('<![CDATA[', at)) next = text.indexOf(']]>', at + 9);
    else if (text.startsWith('<?', at)) next = text.indexOf('?>', at + 2);
    else if (text[at + 1] === '/') {
      depth -= 1;
      next = text.indexOf('>', at);
    } else {
      let quote = '';
      next = at + 1;
      for (; next < text.length; next++) {
        const c = text[next];
        if (quote) {
          if (c === quote) quote = '';
        } else if (c === '"' || c === "'") quote = c;
        else if (c === '>') break;
      }
      if (text[next - 1] !== '/') {
        depth += 1;
        if (depth > XML_MAX_DEPTH) return at;
      }
    }
    if (next < 0) return -1;
    at = text.indexOf('<', next + 1);
  }
  return -1;
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
        throw new CardSyntaxError(
          'xml',
          { 'zh-CN': `${whole} 不是一个字符`, 'en-US': `${whole} is not a character` },
          lineColumn(source, offset),
        );
      }
      return String.fromCodePoint(code);
    }
    const char = PREDEFINED[ref];
    if (char === undefined) {
      throw new CardSyntaxError(
        'xml',
        {
          'zh-CN': `未知的实体 ${whole}（只能使用 &lt; &gt; &amp; &quot; &apos; 和 &#...;）`,
          'en-US': `unknown entity ${whole} (only &lt; &gt; &amp; &quot; &apos; and &#...; are allowed)`,
        },
        lineColumn(source, offset),
      );
    }
    return char;
  });
}
