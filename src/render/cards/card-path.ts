/** The root of every path in a card error, so `card[0].modules[3]` reads like the template. */
export const ROOT_PATH = 'card';

/**
 * Where a value sits in a card message: the list indexes (numbers) and object keys (strings)
 * that lead to it from the root, `[0, 'modules', 3]`.
 */
export type CardPath = readonly (string | number)[];

/**
 * An ajv instance path (`/0/modules/3`) as segments. The path does not say which segments are
 * indexes; digits are read as one, as card messages have no keys of digits only.
 */
export function instanceSegments(instancePath: string): CardPath {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((raw) => {
      const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      return /^\d+$/.test(segment) ? Number(segment) : segment;
    });
}

/** Segments as a template author reads them: `card[0].modules[3]`. */
export function formatPath(segments: CardPath): string {
  let path = ROOT_PATH;
  for (const segment of segments) path += typeof segment === 'number' ? `[${segment}]` : childKey(segment);
  return path;
}

/** `.name` for ordinary keys; a quoted bracket for keys that would not read as one word. */
export function childKey(key: string): string {
  return /^[A-Za-z_$][\w$-]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
