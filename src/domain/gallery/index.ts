import { readFile } from 'node:fs/promises';
import { HeraldError, type Lang } from '../../errors/index.js';
import type { Deps } from '../deps.js';
import { MAX_TITLE_LENGTH, MSGTYPES } from '../templates/constants.js';
import { createTemplate, type SavedTemplate } from '../templates/index.js';
import { type StudioScope, studioBot } from '../templates/studio.js';

/*
 * The gallery: ready templates for common senders, each with sample payloads (src/gallery/,
 * copied next to the compiled code by scripts/copy-assets.mjs). The files are read once per
 * process and never change while it runs. docs/templates.md ("Gallery") lists them.
 */

export const GALLERY_SENDERS = ['github', 'gitlab', 'alertmanager', 'grafana', 'sentry', 'generic'] as const;
export type GallerySender = (typeof GALLERY_SENDERS)[number];
export type Localized = Readonly<Record<Lang, string>>;

export interface GallerySample {
  readonly id: string;
  readonly title: Localized;
  /** Where the payload comes from: a documentation URL or the package and example it was taken from. */
  readonly source: string;
  /** The payload as JSON text (what becomes the template's test_data). */
  readonly data: string;
}

export interface GalleryTemplate {
  /** `<sender>-<event>`, e.g. `github-push`. */
  readonly id: string;
  readonly sender: GallerySender;
  /** The sender's own name for the event (X-GitHub-Event, object_kind, Sentry-Hook-Resource...). */
  readonly event: string;
  readonly msgtype: number;
  readonly title: Localized;
  readonly description: Localized;
  readonly content: string;
  readonly samples: readonly GallerySample[];
}

/** A manifest entry (src/gallery/manifest.json). `optional`, `long` and `repeat` feed the conformance cases. */
export interface GalleryManifestEntry {
  readonly id: string;
  readonly sender: GallerySender;
  readonly event: string;
  readonly msgtype: number;
  readonly title: Localized;
  readonly description: Localized;
  /** Paths (dot-separated, `*` for every list item) a payload may lack. */
  readonly optional: readonly string[];
  /** Paths of sender text that can be long. */
  readonly long: readonly string[];
  /** Paths of lists that can be long. */
  readonly repeat?: readonly string[];
  /**
   * Payloads no sample shows (a merged pull request, a failed run), made from a sample by
   * setting paths to values: conformance cases only, never offered as samples.
   */
  readonly variants?: readonly {
    readonly id: string;
    readonly sample: string;
    readonly set: Readonly<Record<string, unknown>>;
  }[];
  readonly samples: readonly {
    readonly id: string;
    readonly title: Localized;
    readonly source: string;
    /** Taken from @octokit/webhooks-examples by scripts/gallery-samples.mjs. */
    readonly github?: { readonly event: string; readonly action?: string; readonly index: number };
  }[];
}

/** The gallery's data folder: src/gallery when run from sources, dist/gallery when built. */
export const GALLERY_DIR = new URL('../../gallery/', import.meta.url);

const ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

function localized(v: unknown): v is Localized {
  const o = v as Record<string, unknown> | null;
  return typeof o?.['zh-CN'] === 'string' && typeof o['en-US'] === 'string';
}

/** Refuses a malformed manifest with the entry at fault (a packaging mistake, found at first use). */
function checkEntry(e: GalleryManifestEntry): void {
  const bad = (what: string) => new Error(`gallery manifest: ${e?.id ?? '?'}: ${what}`);
  if (typeof e?.id !== 'string' || !ID.test(e.id)) throw bad('id must be lower-case words joined by -');
  if (!GALLERY_SENDERS.includes(e.sender)) throw bad(`unknown sender ${String(e.sender)}`);
  if (typeof e.event !== 'string' || e.event === '') throw bad('event is required');
  if (!MSGTYPES.includes(e.msgtype)) throw bad(`msgtype ${String(e.msgtype)}`);
  if (!localized(e.title) || !localized(e.description))
    throw bad('title and description need zh-CN and en-US');
  if (!Array.isArray(e.samples) || e.samples.length === 0) throw bad('at least one sample');
  const ids = new Set<string>();
  for (const s of e.samples) {
    if (typeof s.id !== 'string' || !ID.test(s.id) || ids.has(s.id)) throw bad(`sample id ${String(s.id)}`);
    ids.add(s.id);
    if (!localized(s.title)) throw bad(`sample ${s.id}: title needs zh-CN and en-US`);
    if (typeof s.source !== 'string' || s.source === '') throw bad(`sample ${s.id}: source is required`);
  }
  for (const v of e.variants ?? []) {
    if (typeof v.id !== 'string' || !ID.test(v.id) || !ids.has(v.sample))
      throw bad(`variant ${String(v.id)}`);
  }
}

export async function readGalleryManifest(dir: URL = GALLERY_DIR): Promise<readonly GalleryManifestEntry[]> {
  const manifest = JSON.parse(await readFile(new URL('manifest.json', dir), 'utf8')) as {
    templates: GalleryManifestEntry[];
  };
  const seen = new Set<string>();
  for (const entry of manifest.templates) {
    checkEntry(entry);
    if (seen.has(entry.id)) throw new Error(`gallery manifest: duplicate id ${entry.id}`);
    seen.add(entry.id);
  }
  return manifest.templates;
}

/** Reads the whole gallery from `dir` (templates/<id>.twig, samples/<id>/<sample id>.json). */
export async function readGallery(dir: URL = GALLERY_DIR): Promise<readonly GalleryTemplate[]> {
  const entries = await readGalleryManifest(dir);
  return Promise.all(
    entries.map(async (e) => ({
      id: e.id,
      sender: e.sender,
      event: e.event,
      msgtype: e.msgtype,
      title: e.title,
      description: e.description,
      content: await readFile(new URL(`templates/${e.id}.twig`, dir), 'utf8'),
      samples: await Promise.all(
        e.samples.map(async (s) => {
          const data = (await readFile(new URL(`samples/${e.id}/${s.id}.json`, dir), 'utf8')).trimEnd();
          JSON.parse(data); // a sample that is not JSON is a packaging mistake: fail loudly here
          return { id: s.id, title: s.title, source: s.source, data };
        }),
      ),
    })),
  );
}

let loaded: Promise<readonly GalleryTemplate[]> | undefined;

/** The gallery, read on first use and kept for the life of the process. */
export function listGallery(): Promise<readonly GalleryTemplate[]> {
  loaded ??= readGallery().catch((err: unknown) => {
    loaded = undefined; // let a later call try again (and report again)
    throw err;
  });
  return loaded;
}

const GALLERY_TEMPLATE = { 'zh-CN': '模板库模板', 'en-US': 'gallery template' } as const;
const GALLERY_SAMPLE = { 'zh-CN': '示例数据', 'en-US': 'sample' } as const;

/** No gallery template (or no sample of it) by that id: 404 naming the field. */
export class GalleryNotFoundError extends HeraldError {
  override readonly name = 'GalleryNotFoundError';
  constructor(field: 'id' | 'sample_id') {
    super('NOT_FOUND', { resource: field === 'id' ? GALLERY_TEMPLATE : GALLERY_SAMPLE }, { data: { field } });
  }
}

export async function getGalleryTemplate(id: string): Promise<GalleryTemplate> {
  const found = (await listGallery()).find((t) => t.id === id);
  if (!found) throw new GalleryNotFoundError('id');
  return found;
}

export interface UseGalleryInput {
  readonly id: string;
  /** The bot whose template it becomes: required of operators; a bot session's own by default. */
  readonly botId?: string;
  /** Which sample becomes test_data; default the first. */
  readonly sampleId?: string;
  /** Default: the gallery title in `lang`. */
  readonly title?: string;
  readonly lang: Lang;
}

/**
 * "Use this template": copies a gallery template into the bot's templates, with the chosen
 * sample as its test_data, through the normal create (compile check, test render warnings).
 */
export async function useGalleryTemplate(
  deps: Deps,
  scope: StudioScope,
  input: UseGalleryInput,
): Promise<SavedTemplate> {
  const template = await getGalleryTemplate(input.id);
  const sample =
    input.sampleId === undefined
      ? template.samples[0]
      : template.samples.find((s) => s.id === input.sampleId);
  if (!sample) throw new GalleryNotFoundError('sample_id');
  const bot = await studioBot(deps, scope, input.botId);
  return createTemplate(deps, bot, {
    title: input.title ?? [...template.title[input.lang]].slice(0, MAX_TITLE_LENGTH).join(''),
    content: template.content,
    type: 0,
    msgtype: template.msgtype,
    test_data: sample.data,
  });
}
