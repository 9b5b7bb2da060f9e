import type { Role } from './api.ts';

/*
 * What the shell offers each role: the nav, the home route and the routes a role may open.
 * Pure (no DOM, no API calls), so the unit tests read it directly. The server is what enforces
 * this (a bot session gets 403 from every operator-only route); the shell only hides what would fail.
 */

export type NavKey =
  | 'overview'
  | 'firstPipe'
  | 'connect'
  | 'bots'
  | 'directory'
  | 'pipes'
  | 'deliveries'
  | 'templates'
  | 'gallery';

export interface NavItem {
  readonly to: string;
  readonly key: NavKey;
}

const OPERATOR_NAV: readonly NavItem[] = [
  { to: '', key: 'overview' },
  { to: 'first-pipe', key: 'firstPipe' },
  { to: 'connect', key: 'connect' },
  { to: 'bots', key: 'bots' },
  { to: 'directory', key: 'directory' },
  { to: 'pipes', key: 'pipes' },
  { to: 'deliveries', key: 'deliveries' },
  { to: 'templates', key: 'templates' },
  { to: 'gallery', key: 'gallery' },
];

/** The route patterns a bot session may open: its templates, the gallery, and its test sends' deliveries. */
const BOT_ROUTES: ReadonlySet<string> = new Set([
  'templates',
  'templates/:id',
  'gallery',
  'gallery/:id',
  'deliveries/:msgId',
]);

/** The nav links a role sees (a bot session: only Templates and Gallery). */
export function navFor(role: Role): readonly NavItem[] {
  return role === 'bot' ? OPERATOR_NAV.filter((n) => BOT_ROUTES.has(n.to)) : OPERATOR_NAV;
}

/** Where the brand link and the empty path lead: the overview is the operators' only. */
export const homeFor = (role: Role): string => (role === 'bot' ? 'templates' : '');

/** Whether a role may open a route pattern (operators: every one). */
export const routeAllowed = (role: Role, pattern: string): boolean =>
  role === 'operator' || BOT_ROUTES.has(pattern);

/** Whether the queue browser (bull-board, its own page) is offered: operators only. */
export const showsQueues = (role: Role): boolean => role === 'operator';
