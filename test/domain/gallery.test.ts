// The gallery's data (src/gallery): what it covers, that every template compiles, and where
// each sample payload comes from. GitHub samples must equal @octokit/webhooks-examples' examples
// (npm run gallery:samples writes them), so a hand edit or a package update shows up here.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { githubExample, githubSource, webhookExamples } from '../../scripts/gallery-samples.js';
import {
  GALLERY_DIR,
  getGalleryTemplate,
  listGallery,
  readGallery,
  readGalleryManifest,
} from '../../src/domain/gallery/index.js';
import { compileTemplate } from '../../src/render/index.js';

const manifest = await readGalleryManifest();
const gallery = await listGallery();

describe('the gallery', () => {
  it('covers the senders and events the issue names', () => {
    const have = new Set(gallery.map((t) => `${t.sender}/${t.event}`));
    for (const want of [
      'github/push',
      'github/pull_request',
      'github/issues',
      'github/release',
      'github/workflow_run',
      'gitlab/push',
      'gitlab/merge_request',
      'gitlab/pipeline',
      'gitlab/issue',
      'gitlab/tag_push',
      'alertmanager/alerts',
      'grafana/alerts',
      'sentry/event_alert',
      'generic/ci',
    ]) {
      expect(have.has(want), want).toBe(true);
    }
    // Alertmanager: a grouped firing payload and a resolved one.
    const am = gallery.find((t) => t.sender === 'alertmanager')!;
    const statuses = am.samples.map((s) => JSON.parse(s.data) as { status: string; alerts: unknown[] });
    expect(statuses.map((s) => s.status).sort()).toEqual(['firing', 'resolved']);
    expect(statuses.every((s) => s.alerts.length >= 2)).toBe(true);
  });

  it('has templates that compile and samples that are JSON objects', () => {
    for (const t of gallery) {
      expect(() => compileTemplate(t.content), t.id).not.toThrow();
      for (const s of t.samples) expect(JSON.parse(s.data), `${t.id}/${s.id}`).toBeTypeOf('object');
    }
  });

  it('answers a template by id, and refuses an unknown one with 404', async () => {
    expect((await getGalleryTemplate('gitlab-push')).msgtype).toBe(2);
    await expect(getGalleryTemplate('nope')).rejects.toMatchObject({ code: 40401, data: { field: 'id' } });
  });
});

describe('sample sources', () => {
  const { version, events } = webhookExamples();

  it.each(
    manifest.flatMap((e) =>
      e.samples.filter((s) => s.github).map((s) => [`${e.id}/${s.id}`, e.id, s] as const),
    ),
  )('%s equals its @octokit/webhooks-examples example', (_name, id, sample) => {
    const example = githubExample(events, sample.github!);
    const committed = JSON.parse(
      readFileSync(new URL(`samples/${id}/${sample.id}.json`, GALLERY_DIR), 'utf8'),
    );
    // Same values, and the same key order (what a template's loops see).
    expect(JSON.stringify(committed)).toBe(JSON.stringify(example));
    expect(sample.source).toBe(githubSource(version, sample.github!));
  });

  it('names a documentation page for every sample not from the package', () => {
    const others = manifest.flatMap((e) => e.samples.filter((s) => !s.github).map((s) => ({ e, s })));
    expect(others.length).toBeGreaterThan(10);
    for (const { e, s } of others) {
      const ok =
        e.sender === 'generic' ? /^Herald's own/.test(s.source) : /^https:\/\/[a-z.]+\/\S+$/.test(s.source);
      expect(ok, `${e.id}/${s.id}: ${s.source}`).toBe(true);
    }
  });
});

describe('reading the gallery folder', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** A gallery folder with one template, changed by `edit`. */
  function folder(edit: (m: { templates: Record<string, unknown>[] }) => void, sample = '{"a":1}'): URL {
    const dir = mkdtempSync(join(tmpdir(), 'gallery-'));
    dirs.push(dir);
    const m = {
      templates: [
        {
          id: 'x-y',
          sender: 'generic',
          event: 'json',
          msgtype: 1,
          title: { 'zh-CN': 'x', 'en-US': 'x' },
          description: { 'zh-CN': 'x', 'en-US': 'x' },
          optional: [],
          long: [],
          samples: [{ id: 's', title: { 'zh-CN': 's', 'en-US': 's' }, source: 'https://example.com/doc' }],
        },
      ],
    };
    edit(m);
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m));
    mkdirSync(join(dir, 'templates'));
    writeFileSync(join(dir, 'templates', 'x-y.twig'), '{{ data.a }}');
    mkdirSync(join(dir, 'samples', 'x-y'), { recursive: true });
    writeFileSync(join(dir, 'samples', 'x-y', 's.json'), sample);
    return pathToFileURL(`${dir}/`);
  }

  it('reads templates and samples', async () => {
    const [t] = await readGallery(folder(() => {}));
    expect(t).toMatchObject({ id: 'x-y', content: '{{ data.a }}', samples: [{ id: 's', data: '{"a":1}' }] });
  });

  it('refuses a malformed manifest or sample, naming the entry', async () => {
    await expect(readGallery(folder((m) => (m.templates[0]!.sender = 'slack')))).rejects.toThrow(
      /x-y: unknown sender/,
    );
    await expect(readGallery(folder((m) => (m.templates[0]!.msgtype = 9)))).rejects.toThrow(/x-y: msgtype/);
    await expect(readGallery(folder((m) => m.templates.push({ ...m.templates[0]! })))).rejects.toThrow(
      /duplicate id x-y/,
    );
    await expect(readGallery(folder(() => {}, '{not json'))).rejects.toThrow(SyntaxError);
  });
});
