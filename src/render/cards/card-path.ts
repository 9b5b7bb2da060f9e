/** The root of every path in a card error, so `card[0].modules[3]` reads like the template. */
export const ROOT_PATH = 'card';

/** Turns an ajv instance path (`/0/modules/3`) into `card[0].modules[3]`. */
export function formatPath(instancePath: string): string {
  let path = ROOT_PATH;
  if (instancePath === '') return path;
  for (const raw of instancePath.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(segment) ? `[${segment}]` : childKey(segment);
  }
  return path;
}

/** `.name` for ordinary keys; a quoted bracket for keys that would not read as one word. */
export function childKey(key: string): string {
  return /^[A-Za-z_$][\w$-]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
