import type { CardPath } from './card-path.js';

/**
 * Where the value at `at` starts in `text`, which is JSON that JSON.parse accepted: for an object
 * member, where its key starts (the line an author looks for); for a list item, where the item
 * starts. When `at` leads somewhere that does not exist (a missing field), the deepest part that
 * does. Only runs when a card is invalid, so it scans rather than keeping positions on the hot
 * path. Of duplicate keys the last counts, as in JSON.parse.
 */
export function locateJson(text: string, at: CardPath): number {
  let place: Place = { shown: skipSpace(text, 0), value: skipSpace(text, 0) };
  for (const segment of at) {
    const child = childPlace(text, place.value, segment);
    if (child === undefined) break;
    place = child;
  }
  return place.shown;
}

/** Where a value is shown (its key, for an object member) and where the value itself starts. */
interface Place {
  readonly shown: number;
  readonly value: number;
}

/** Member `segment` of the object or list starting at `start`, if it has one. */
function childPlace(text: string, start: number, segment: string | number): Place | undefined {
  const open = text[start];
  if (open === '[' && typeof segment === 'number') {
    let pos = skipSpace(text, start + 1);
    for (let index = 0; pos < text.length && text[pos] !== ']'; index++) {
      if (index === segment) return { shown: pos, value: pos };
      pos = skipSpace(text, skipValue(text, pos));
      if (text[pos] === ',') pos = skipSpace(text, pos + 1);
    }
    return undefined;
  }
  if (open === '{') {
    const key = String(segment);
    let found: Place | undefined;
    let pos = skipSpace(text, start + 1);
    while (text[pos] === '"') {
      const keyEnd = skipString(text, pos);
      const name = JSON.parse(text.slice(pos, keyEnd)) as string;
      const valueStart = skipSpace(text, skipSpace(text, keyEnd) + 1);
      if (name === key) found = { shown: pos, value: valueStart };
      pos = skipSpace(text, skipValue(text, valueStart));
      if (text[pos] === ',') pos = skipSpace(text, pos + 1);
    }
    return found;
  }
  return undefined;
}

function skipSpace(text: string, pos: number): number {
  while (pos < text.length && ' \t\r\n'.includes(text[pos] as string)) pos++;
  return pos;
}

/** Past the string whose opening quote is at `pos`. */
function skipString(text: string, pos: number): number {
  for (let i = pos + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i + 1;
  }
  return text.length;
}

/** Past the value starting at `pos` (nested lists and objects, strings, numbers, literals). */
function skipValue(text: string, pos: number): number {
  const first = text[pos];
  if (first === '"') return skipString(text, pos);
  if (first !== '{' && first !== '[') {
    let end = pos;
    while (end < text.length && !',]} \t\r\n'.includes(text[end] as string)) end++;
    return end;
  }
  let depth = 0;
  for (let i = pos; i < text.length; i++) {
    const c = text[i];
    if (c === '"') i = skipString(text, i) - 1;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}
