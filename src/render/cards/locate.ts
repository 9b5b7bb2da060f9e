import { isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { CardPath } from './card-path.js';
import { locateJson } from './locate-json.js';
import { parseXml } from './parse-xml.js';
import { YAML_OPTIONS } from './parse-yaml.js';
import type { CardFormat } from './types.js';

/**
 * Where in a rendered card text (which parsed) the value at `at` is, as an offset: the deepest
 * part of `at` that exists, so a missing field points at the object that lacks it. Only runs
 * when a card is invalid: each format parses again, keeping positions this time.
 */
export function locateCardValue(text: string, format: CardFormat, at: CardPath): number {
  switch (format) {
    case 'json':
      return locateJson(text, at);
    case 'yaml':
      return locateYaml(text, at);
    case 'xml':
      return locateXml(text, at);
  }
}

/** A map member is shown at its key, a list item where it starts. */
function locateYaml(text: string, at: CardPath): number {
  const document = parseDocument(text, YAML_OPTIONS);
  let node: unknown = document.contents;
  let shown = (document.contents?.range?.[0] as number | undefined) ?? 0;
  for (const segment of at) {
    if (isMap(node)) {
      const pair = node.items.findLast((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      if (!pair) break;
      shown = (isScalar(pair.key) ? pair.key.range?.[0] : undefined) ?? shown;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment] as { range?: [number, number, number] } | undefined;
      if (!item) break;
      shown = item.range?.[0] ?? shown;
      node = item;
    } else {
      break;
    }
  }
  return shown;
}

/**
 * At the element a value came from; for a field given as an attribute, at that attribute. Text
 * content and bare-string slots are shown at their element.
 */
function locateXml(text: string, at: CardPath): number {
  const offsets = new WeakMap<object, number>();
  let node: unknown = parseXml(text, offsets);
  let shown = offsets.get(node as object) ?? 0;
  for (const segment of at) {
    const child = (node as Record<string | number, unknown> | null)?.[segment];
    if (child === undefined || child === null) break;
    if (typeof child === 'object') {
      shown = offsets.get(child) ?? shown;
    } else if (typeof segment === 'string') {
      shown = attributeOffset(text, shown, segment) ?? shown;
    }
    node = child;
  }
  return shown;
}

/** The offset of attribute `name` in the start tag at `tagStart`, if it is written there. */
function attributeOffset(text: string, tagStart: number, name: string): number | undefined {
  // Attribute values are quoted and never hold a quote of their own kind, so `>` ends the tag
  // only outside quotes.
  let quote = '';
  for (let i = tagStart + 1; i < text.length; i++) {
    const c = text[i] as string;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '>') {
      return undefined;
    } else if (/\s/.test(c) && text.startsWith(name, i + 1)) {
      const after = text.slice(i + 1 + name.length).match(/^\s*=/);
      if (after) return i + 1;
    }
  }
  return undefined;
}
