import { CardSyntaxError } from '../errors/card-syntax-error.js';
import { lineColumn } from './line-column.js';
import {
  attributeValue,
  CONTENT_TYPES,
  LIST_FIELD,
  normalizeText,
  SLOT_OF_CHILD,
  SLOT_TYPES,
  XML_CARDS_ROOT,
  XML_SLOTS,
  XML_TYPES,
  type XmlSlot,
} from './xml-mapping.js';
import { isElement, parseXmlTree, type XmlChild, type XmlElement } from './xml-tree.js';

type Json = string | number | boolean | Json[] | { [key: string]: Json };

/**
 * Card XML to card JSON (the mapping is described in docs/cards.md): element name = type,
 * attributes = fields, text = `content` (or a slot's bare string), children = the list field, and
 * `<text>`/`<accessory>` wrappers fill a slot. The result is validated afterwards like JSON input,
 * so this only reports what cannot be mapped at all. `offsets`, when given, learns the source
 * offset of the element each object and list of the result came from (to place card errors).
 */
export function parseXml(source: string, offsets?: WeakMap<object, number>): unknown {
  const root = parseXmlTree(source);
  // Herald's own words about the mapping, in each language.
  const fail = (element: XmlElement, zh: string, en: string): never => {
    throw new CardSyntaxError('xml', { 'zh-CN': zh, 'en-US': en }, lineColumn(source, element.offset));
  };

  const textOf = (element: XmlElement): string =>
    normalizeText(
      element.children
        .filter((child): child is { text: string } => !isElement(child))
        .map((child) => child.text)
        .join(''),
    );
  const elementsOf = (element: XmlElement): XmlElement[] => element.children.filter(isElement);
  const hasText = (element: XmlElement): boolean =>
    element.children.some((child: XmlChild) => !isElement(child) && child.text.trim() !== '');

  /** An element named for a type; `attributes` may come from a wrapper that names the type. */
  function typed(element: XmlElement, type: string, attributes: Readonly<Record<string, string>>): Json {
    const value: { [key: string]: Json } = { type };
    offsets?.set(value, element.offset);
    for (const [name, raw] of Object.entries(attributes)) value[name] = attributeValue(type, name, raw);
    const children = elementsOf(element);
    const listField = LIST_FIELD[type];
    const slots = SLOT_TYPES[type];

    if (CONTENT_TYPES.has(type)) {
      if (children.length > 0)
        fail(
          element,
          `<${element.name}> 只能包含文本，不能包含 <${children[0]?.name}>`,
          `<${element.name}> holds text only, not <${children[0]?.name}>`,
        );
      if ('content' in value && hasText(element))
        fail(element, 'content 不能同时以属性和文本给出', 'content is given both as attribute and as text');
      if (!('content' in value)) value.content = textOf(element);
    } else if (listField !== undefined) {
      if (hasText(element)) {
        fail(
          element,
          `<${element.name}> 里不能直接写文本，请用 <text> 或 <plain-text> 包起来`,
          `text directly inside <${element.name}> is not allowed; wrap it in <text> or <plain-text>`,
        );
      }
      if (listField in value)
        fail(
          element,
          `${listField} 不能作为属性，请写成子元素`,
          `${listField} cannot be an attribute; give them as child elements`,
        );
      const list = children.map(item);
      offsets?.set(list, element.offset);
      value[listField] = list;
    } else if (slots !== undefined) {
      fillSlots(element, slots, value);
    } else if (children.length > 0 || hasText(element)) {
      fail(element, `<${element.name}> 只能有属性`, `<${element.name}> takes attributes only`);
    }
    return value;
  }

  function fillSlots(element: XmlElement, slots: readonly XmlSlot[], value: { [key: string]: Json }): void {
    const set = (slot: string, content: Json, at: XmlElement) => {
      if (slot in value) fail(at, `${slot} 给出了不止一次`, `${slot} is given more than once`);
      value[slot] = content;
    };
    for (const child of elementsOf(element)) {
      const slot = (XML_SLOTS as readonly string[]).includes(child.name)
        ? (child.name as XmlSlot)
        : SLOT_OF_CHILD[child.name];
      if (slot === undefined || !slots.includes(slot)) {
        fail(
          child,
          `<${element.name}> 里不能有 <${child.name}>（只能有 ${slots.map((s) => `<${s}>`).join('、')}）`,
          `<${child.name}> is not allowed in <${element.name}> (it takes ${slots.map((s) => `<${s}>`).join(' and ')})`,
        );
      }
      set(slot as string, slot === child.name ? wrapper(child) : item(child), child);
    }
    // Text right inside a header, section or button is its text as a bare string.
    if (hasText(element)) {
      if (elementsOf(element).length > 0)
        fail(
          element,
          `<${element.name}> 混合了文本和元素，请把文本用 <text> 包起来`,
          `<${element.name}> mixes text and elements; wrap the text in <text>`,
        );
      set('text', textOf(element), element);
    }
  }

  /** `<text>`/`<accessory>`: a typed element via `type`, its single child, or a bare string. */
  function wrapper(element: XmlElement): Json {
    const { type, ...rest } = element.attributes;
    if (type !== undefined) {
      if (!XML_TYPES.has(type)) fail(element, `未知的类型 "${type}"`, `unknown type "${type}"`);
      return typed(element, type, rest);
    }
    if (Object.keys(rest).length > 0) {
      fail(
        element,
        `<${element.name}> 只有和 type="..." 一起时才能有属性`,
        `<${element.name}> takes attributes only together with type="..."`,
      );
    }
    const children = elementsOf(element);
    if (children.length === 0) return textOf(element);
    if (children.length > 1 || hasText(element))
      fail(
        element,
        `<${element.name}> 只能包含一个元素或文本`,
        `<${element.name}> holds one element or text`,
      );
    return item(children[0] as XmlElement);
  }

  /** A member of a list (or a slot's unwrapped element). */
  function item(element: XmlElement): Json {
    if (element.name === 'text') return wrapper(element);
    if (!XML_TYPES.has(element.name))
      fail(element, `未知的元素 <${element.name}>`, `unknown element <${element.name}>`);
    if ('type' in element.attributes) {
      fail(
        element,
        `<${element.name}> 已经表明了类型；type 属性只用于 <text> 和 <accessory>`,
        `<${element.name}> already names its type; the type attribute is for <text> and <accessory>`,
      );
    }
    return typed(element, element.name, element.attributes);
  }

  if (root.name === XML_CARDS_ROOT) {
    if (Object.keys(root.attributes).length > 0)
      fail(root, `<${XML_CARDS_ROOT}> 不能有属性`, `<${XML_CARDS_ROOT}> takes no attributes`);
    if (hasText(root))
      fail(
        root,
        `<${XML_CARDS_ROOT}> 里不能直接写文本`,
        `text directly inside <${XML_CARDS_ROOT}> is not allowed`,
      );
    const cards = elementsOf(root).map(item);
    offsets?.set(cards, root.offset);
    return cards;
  }
  if (root.name === 'card') {
    const cards = [item(root)];
    offsets?.set(cards, root.offset);
    return cards;
  }
  return fail(
    root,
    `根元素必须是 <card> 或 <${XML_CARDS_ROOT}>，不能是 <${root.name}>`,
    `the root element must be <card> or <${XML_CARDS_ROOT}>, not <${root.name}>`,
  );
}
