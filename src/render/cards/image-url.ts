import { IMAGE_EXTENSIONS } from './limits.js';

const ALLOWED: ReadonlySet<string> = new Set(IMAGE_EXTENSIONS);

/**
 * The extension of the last segment of a URL's path (lower case), or '' when it has none. The
 * query and fragment are ignored: `a.png?w=100` is a png. Works on relative and malformed
 * addresses too, since the platform's image proxy addresses need not be absolute URLs.
 */
export function imageExtension(url: string): string {
  // Scheme and host go first, or `https://example.com` would read as a `.com` file.
  const pathPart = url.replace(/[?#].*$/s, '').replace(/^(?:[A-Za-z][A-Za-z\d+.-]*:)?\/\/[^/]*/, '');
  const last = pathPart.slice(pathPart.lastIndexOf('/') + 1);
  const dot = last.lastIndexOf('.');
  return dot <= 0 ? '' : last.slice(dot + 1).toLowerCase();
}

/**
 * Only jpeg, gif and png images are allowed. A URL is refused only when its path names another
 * extension (`.webp`, `.svg`); no extension is accepted, because image services and the
 * platform's own image function often serve addresses without one.
 */
export function isAllowedImageUrl(url: string): boolean {
  const ext = imageExtension(url);
  return ext === '' || ALLOWED.has(ext);
}
