import type { Lang } from '../../../errors/index.js';
import type { PipeEventSource, PipeGrouping, PipeRoutes } from '../../../store/index.js';
import type { Deps } from '../../deps.js';
import { useGalleryTemplate } from '../../gallery/index.js';
import { deleteTemplate } from '../../templates/index.js';
import { type CreatedPipe, checkNewPipeChannel, createPipe, type NewPipeInput } from '../pipes.js';
import type { PipeDeps } from '../runtime.js';
import type { SignedScheme } from '../signatures/schemes.js';

/*
 * Presets (docs/pipes.md, "Presets"): creating a pipe for a known sender sets, in one step, where
 * the sender names its event, a route per event to a template made for the bot from the gallery
 * (src/gallery), and the events to answer without posting (GitHub's `ping`).
 *
 * A preset is data (PIPE_PRESETS); presetPipeInput turns one into the pipe's settings. Settings a
 * preset makes beyond routing (a signature scheme, for instance) belong in PipePreset and in
 * presetPipeInput, next to the routing ones.
 */

export const PIPE_PRESET_IDS = ['github', 'gitlab', 'alertmanager', 'grafana', 'sentry'] as const;
export type PipePresetId = (typeof PIPE_PRESET_IDS)[number];

export interface PipePreset {
  readonly id: PipePresetId;
  /** Where the sender names the event. */
  readonly event_source: PipeEventSource;
  /** Event -> the gallery template that renders it (one bot template per gallery template). */
  readonly routes: Readonly<Record<string, string>>;
  /** Events answered 200 and not posted (a `null` route). */
  readonly ignore: readonly string[];
  /**
   * The signature the sender can make with a secret Herald generates (unless the create call
   * names one); null where the sender signs nothing or only with a secret of its own (Sentry's
   * client secret: give it as `signature`).
   */
  readonly signature: SignedScheme | null;
  /**
   * The grouping the pipe starts with (docs/pipes.md, "Grouping"; the create call's `grouping`,
   * null included, replaces it); null: none.
   */
  readonly grouping: PipeGrouping | null;
}

/**
 * Alertmanager and Grafana name each notification's group (`groupKey`) and send the same group
 * again as it changes and when it resolves: one message per group, edited in place, for a day
 * after the group's last notification (a group that fires again later starts a new message).
 */
const EDIT_BY_GROUP_KEY: PipeGrouping = {
  key: '{{ data.groupKey }}',
  mode: 'update',
  window_s: 86_400,
  limit: null,
};

/**
 * The senders' own names for their events: GitHub's X-GitHub-Event, GitLab's object_kind (which,
 * unlike X-Gitlab-Event, names a confidential issue `issue` too), Alertmanager's and Grafana's
 * `status`, Sentry's Sentry-Hook-Resource.
 */
export const PIPE_PRESETS: Readonly<Record<PipePresetId, PipePreset>> = {
  github: {
    id: 'github',
    event_source: { header: 'x-github-event' },
    routes: {
      push: 'github-push',
      pull_request: 'github-pull-request',
      issues: 'github-issues',
      release: 'github-release',
      workflow_run: 'github-workflow-run',
    },
    // Sent once when the hook is made (or "Redeliver"ed): it says the URL works, nothing more.
    ignore: ['ping'],
    signature: 'github',
    grouping: null,
  },
  gitlab: {
    id: 'gitlab',
    event_source: { body: 'object_kind' },
    routes: {
      push: 'gitlab-push',
      tag_push: 'gitlab-tag-push',
      issue: 'gitlab-issue',
      merge_request: 'gitlab-merge-request',
      pipeline: 'gitlab-pipeline',
    },
    ignore: [],
    signature: 'gitlab',
    grouping: null,
  },
  alertmanager: {
    id: 'alertmanager',
    event_source: { body: 'status' },
    routes: { firing: 'alertmanager', resolved: 'alertmanager' },
    ignore: [],
    signature: null,
    grouping: EDIT_BY_GROUP_KEY,
  },
  grafana: {
    id: 'grafana',
    event_source: { body: 'status' },
    routes: { firing: 'grafana-alerting', resolved: 'grafana-alerting' },
    ignore: [],
    signature: null,
    grouping: EDIT_BY_GROUP_KEY,
  },
  sentry: {
    id: 'sentry',
    event_source: { header: 'sentry-hook-resource' },
    routes: { event_alert: 'sentry-issue-alert' },
    // Sent when the integration is installed or removed.
    ignore: ['installation'],
    signature: null,
    grouping: null,
  },
};

/** The gallery templates a preset's routes use, each once, in route order. */
export const presetGalleryIds = (preset: PipePreset): string[] => [...new Set(Object.values(preset.routes))];

/**
 * The pipe settings a preset makes, given the bot template made from each gallery template
 * (gallery id -> template id).
 */
export function presetPipeInput(
  preset: PipePreset,
  templates: ReadonlyMap<string, string>,
): Pick<NewPipeInput, 'event_source' | 'routes' | 'preset'> {
  const routes: Record<string, string | null> = {};
  for (const [event, galleryId] of Object.entries(preset.routes)) {
    const templateId = templates.get(galleryId);
    if (templateId === undefined) throw new Error(`preset ${preset.id}: no template made for ${galleryId}`);
    routes[event] = templateId;
  }
  for (const event of preset.ignore) routes[event] = null;
  return { event_source: preset.event_source, routes: routes as PipeRoutes, preset: preset.id };
}

/** A template a preset made for the bot. */
export interface PresetTemplate {
  readonly id: string;
  readonly title: string;
  /** The gallery template it was made from. */
  readonly gallery_id: string;
}

export interface CreatedPresetPipe extends CreatedPipe {
  readonly templates: readonly PresetTemplate[];
}

/**
 * Creates a pipe with a preset: checks the bot and channel first (so that a mistake there makes
 * nothing), makes the bot's templates from the gallery (each with its first sample as
 * test_data), then the pipe routing to them. `input.template_id`, if given, is the default for
 * events without a route. If the pipe cannot be made, the templates made for it are deleted.
 */
export async function createPresetPipe(
  deps: PipeDeps,
  presetId: PipePresetId,
  input: NewPipeInput,
  lang: Lang,
): Promise<CreatedPresetPipe> {
  const preset = PIPE_PRESETS[presetId];
  await checkNewPipeChannel(deps, input.bot_id, input.channel_id);
  const made: PresetTemplate[] = [];
  const byGallery = new Map<string, string>();
  try {
    for (const galleryId of presetGalleryIds(preset)) {
      const saved = await useGalleryTemplate(
        deps,
        { botId: null },
        { id: galleryId, botId: input.bot_id, lang },
      );
      made.push({ id: saved.model.id, title: saved.model.title, gallery_id: galleryId });
      byGallery.set(galleryId, saved.model.id);
    }
    const signature =
      input.signature ??
      (preset.signature === null
        ? undefined
        : { scheme: preset.signature, secret: null, header: null, encoding: null, prefix: null });
    const created = await createPipe(deps, {
      ...input,
      ...presetPipeInput(preset, byGallery),
      grouping: input.grouping !== undefined ? input.grouping : preset.grouping,
      ...(signature === undefined ? {} : { signature }),
    });
    return { ...created, templates: made };
  } catch (err) {
    await removeTemplates(deps, input.bot_id, made);
    throw err;
  }
}

/** Best effort: a template left behind is the bot's to delete, and says so in the log. */
async function removeTemplates(
  deps: Deps,
  botId: string,
  templates: readonly PresetTemplate[],
): Promise<void> {
  if (templates.length === 0) return;
  const bot = await deps.store.bots.get(botId).catch(() => null);
  for (const t of templates) {
    try {
      if (!bot) throw new Error('bot not found');
      await deleteTemplate(deps, bot, t.id);
    } catch (err) {
      deps.log.warn('template of a preset pipe not made was not deleted', {
        bot_id: botId,
        template_id: t.id,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}
