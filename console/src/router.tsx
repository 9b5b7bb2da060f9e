import { signal } from '@preact/signals';
import type { ComponentChildren } from 'preact';

/** Where the console lives; every app path is relative to it. */
export const BASE = '/console/';

const current = () => {
  const path = globalThis.location?.pathname ?? BASE;
  return path.startsWith(BASE) ? path.slice(BASE.length) : '';
};

/** The app path (no base, no leading slash) and its query, e.g. `deliveries/123`. */
export const route = signal({ path: current(), query: new URLSearchParams(globalThis.location?.search) });

/**
 * Asked before the app leaves the current page for another: false keeps it. A screen with unsaved
 * changes sets it while they last (the browser's own beforeunload covers reloads and closed tabs).
 */
let leaveGuard: (() => boolean) | null = null;

export function setLeaveGuard(guard: (() => boolean) | null): void {
  leaveGuard = guard;
}

const here = () => `${location.pathname}${location.search}`;

export function navigate(to: string, replace = false): void {
  const url = BASE + to.replace(/^\//, '');
  if (leaveGuard && url !== here() && !leaveGuard()) return;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  route.value = { path: current(), query: new URLSearchParams(location.search) };
  globalThis.scrollTo?.(0, 0);
}

globalThis.addEventListener?.('popstate', () => {
  // Back or forward has already changed the address: a guard that refuses puts it back.
  if (leaveGuard && !leaveGuard()) {
    const { path, query } = route.value;
    const qs = query.toString();
    history.pushState(null, '', `${BASE}${path}${qs === '' ? '' : `?${qs}`}`);
    return;
  }
  route.value = { path: current(), query: new URLSearchParams(location.search) };
});

/** A path segment decoded, or null for a malformed % escape (decodeURIComponent throws on it). */
function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/**
 * Matches `pattern` (segments, `:name` captures) against an app path. A path with a malformed
 * % escape matches nothing, so it shows the not-found screen rather than blanking the app.
 */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const got = path.split('/').filter(Boolean);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = decodeSegment(got[i]!);
    if (g === null) return null;
    if (w.startsWith(':')) params[w.slice(1)] = g;
    else if (w !== g) return null;
  }
  return params;
}

type LinkProps = {
  to: string;
  children: ComponentChildren;
  class?: string;
  'aria-current'?: 'page' | undefined;
  'aria-label'?: string;
};

/** An ordinary link (middle-click and keyboard work) that navigates in place. */
export function Link({ to, children, ...rest }: LinkProps) {
  const href = BASE + to.replace(/^\//, '');
  return (
    <a
      {...rest}
      href={href}
      onClick={(e) => {
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
