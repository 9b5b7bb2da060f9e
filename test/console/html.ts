import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/** The HTML a view draws (server-side rendering: the same tree the browser builds). */
export const html = (v: VNode): string => renderToString(v);

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };

/** The text a reader sees: tags dropped, <br> as a line end, entities decoded. */
export function textOf(markup: string): string {
  return markup
    .replace(/<br\s*\/?>/g, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|apos|#39);/g, (_, name: string) => ENTITIES[name]!);
}

/** An opening tag: its name, then its attributes (quoted values may hold any character but "). */
const OPEN_TAG = /<([a-z0-9]+)((?:\s+[^\s="/>]+(?:="[^"]*")?)*)\s*\/?>/g;

/** How many elements carry the class `cls` (as a whole word in their class attribute). */
export function countClass(markup: string, cls: string): number {
  let n = 0;
  for (const m of markup.matchAll(/\sclass="([^"]*)"/g)) {
    if (m[1]!.split(/\s+/).includes(cls)) n++;
  }
  return n;
}

/** Every opening tag, in document order, as `name.class1.class2`. */
export function tags(markup: string): string[] {
  return [...markup.matchAll(OPEN_TAG)].map((m) => {
    const cls = /\sclass="([^"]*)"/.exec(m[2]!)?.[1];
    return cls ? `${m[1]}.${cls.split(/\s+/).join('.')}` : m[1]!;
  });
}

/** Attribute names of every opening tag (to check that no event handler is ever drawn). */
export function attributeNames(markup: string): string[] {
  const names: string[] = [];
  for (const m of markup.matchAll(OPEN_TAG)) {
    // Values are quoted; drop them so text inside a value is not read as an attribute.
    const attrs = m[2]!.replace(/"[^"]*"/g, '""');
    for (const a of attrs.matchAll(/\s([^\s=/>]+)/g)) names.push(a[1]!.toLowerCase());
  }
  return names;
}
