import { translator } from './i18n.ts';

/*
 * The gallery of built-in templates as the console reads it (GET /admin/api/gallery/list and
 * view): its records, the grouping by sender with the search, and the render request of a sample.
 * Pure (no DOM, no API calls): unit-tested directly.
 */

export const SENDERS = ['github', 'gitlab', 'alertmanager', 'grafana', 'sentry', 'generic'] as const;
export type Sender = (typeof SENDERS)[number];

export interface GalleryItem {
  /** e.g. `github-push`. */
  readonly id: string;
  readonly title: string;
  readonly sender: string;
  readonly event: string;
  readonly msgtype: number;
  readonly description: string;
  readonly samples: readonly { id: string; title: string }[];
}

export interface GallerySample {
  readonly id: string;
  readonly title: string;
  /** The payload as JSON text. */
  readonly data: string;
  /** Where the sample comes from (a package, a documentation page). */
  readonly source: string;
}

export interface GalleryTemplate extends Omit<GalleryItem, 'samples'> {
  readonly content: string;
  readonly samples: readonly GallerySample[];
}

const t = translator({
  'zh-CN': {
    github: 'GitHub',
    gitlab: 'GitLab',
    alertmanager: 'Prometheus Alertmanager',
    grafana: 'Grafana',
    sentry: 'Sentry',
    generic: '通用 / CI',
  },
  'en-US': {
    github: 'GitHub',
    gitlab: 'GitLab',
    alertmanager: 'Prometheus Alertmanager',
    grafana: 'Grafana',
    sentry: 'Sentry',
    generic: 'Generic / CI',
  },
});

/** A sender's name as shown; one the console does not know, as written. */
export const senderLabel = (sender: string): string =>
  (SENDERS as readonly string[]).includes(sender) ? t(sender as Sender) : sender;

/** Lower case, without accents, so a search matches however it was typed. */
const fold = (s: string): string => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * Whether an item matches a search: every word of it is found in the item's title, event,
 * description, id or sender (its name as shown, too).
 */
export function matchesSearch(item: GalleryItem, q: string): boolean {
  const words = fold(q).split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const hay = fold(
    [item.title, item.event, item.description, item.id, item.sender, senderLabel(item.sender)].join(' '),
  );
  return words.every((w) => hay.includes(w));
}

export interface SenderGroup {
  readonly sender: string;
  readonly label: string;
  readonly items: readonly GalleryItem[];
}

/**
 * The items matching `q`, grouped by sender: known senders in SENDERS' order, then any other in
 * alphabetical order; items keep the order the server gave. Groups with no match are left out.
 */
export function groupBySender(items: readonly GalleryItem[], q = ''): SenderGroup[] {
  const groups = new Map<string, GalleryItem[]>();
  for (const item of items) {
    if (!matchesSearch(item, q)) continue;
    const list = groups.get(item.sender);
    if (list) list.push(item);
    else groups.set(item.sender, [item]);
  }
  const rank = (s: string) => {
    const i = (SENDERS as readonly string[]).indexOf(s);
    return i === -1 ? SENDERS.length : i;
  };
  return [...groups.keys()]
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
    .map((sender) => ({ sender, label: senderLabel(sender), items: groups.get(sender)! }));
}

/** The sample to open with: the one the URL names when it exists, else the first. */
export function pickSample(
  tpl: Pick<GalleryTemplate, 'samples'>,
  wanted: string | null,
): GallerySample | undefined {
  return tpl.samples.find((s) => s.id === wanted) ?? tpl.samples[0];
}

/** The body of POST /admin/api/template/render for a gallery template over one of its samples. */
export function renderBody(
  tpl: Pick<GalleryTemplate, 'content' | 'msgtype'>,
  botId: string,
  sample: GallerySample | undefined,
): { bot_id: string; content: string; msgtype: number; data?: string } {
  const body: { bot_id: string; content: string; msgtype: number; data?: string } = {
    bot_id: botId,
    content: tpl.content,
    msgtype: tpl.msgtype,
  };
  if (sample) body.data = sample.data;
  return body;
}

/** The body of POST /admin/api/gallery/use. */
export function useBody(
  id: string,
  botId: string,
  sampleId: string | undefined,
): { id: string; bot_id: string; sample_id?: string } {
  return sampleId ? { id, bot_id: botId, sample_id: sampleId } : { id, bot_id: botId };
}
