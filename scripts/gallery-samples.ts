// Writes the gallery's GitHub sample payloads from @octokit/webhooks-examples (GitHub's webhook
// examples, kept by the Octokit maintainers) instead of hand-typed JSON:
//
//   npm run gallery:samples
//
// Every sample in src/gallery/manifest.json with a `github: {event, action?, index}` entry
// becomes src/gallery/samples/<template id>/<sample id>.json (that example, unchanged), and its
// `source` names the package version and example. test/domain/gallery.test.ts fails when a
// committed sample no longer equals the package's example.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { GalleryManifestEntry } from '../src/domain/gallery/index.js';

export const WEBHOOK_EXAMPLES = '@octokit/webhooks-examples';

interface WebhookExamples {
  readonly name: string;
  readonly examples: readonly Record<string, unknown>[];
}

type GithubSpec = NonNullable<GalleryManifestEntry['samples'][number]['github']>;

const require = createRequire(import.meta.url);

/** The installed package's version and its api.github.com examples. */
export function webhookExamples(): { version: string; events: readonly WebhookExamples[] } {
  const { version } = require(`${WEBHOOK_EXAMPLES}/package.json`) as { version: string };
  const events = require(`${WEBHOOK_EXAMPLES}/api.github.com/index.json`) as WebhookExamples[];
  return { version, events };
}

/** The `source` text of a sample taken from the package (the test expects exactly this). */
export function githubSource(version: string, spec: GithubSpec): string {
  return `${WEBHOOK_EXAMPLES}@${version}, api.github.com/index.json: "${spec.event}" example ${spec.index} (https://github.com/octokit/webhooks/tree/main/payload-examples/api.github.com/${spec.event})`;
}

/** The example a manifest entry names; throws when it is gone or is another action than named. */
export function githubExample(events: readonly WebhookExamples[], spec: GithubSpec): Record<string, unknown> {
  const example = events.find((e) => e.name === spec.event)?.examples[spec.index];
  if (example === undefined) throw new Error(`no "${spec.event}" example ${spec.index}`);
  // The index alone could silently point at another action after a package update.
  if (spec.action !== undefined && example.action !== spec.action) {
    throw new Error(
      `"${spec.event}" example ${spec.index} is "${String(example.action)}", not "${spec.action}"`,
    );
  }
  return example;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const gallery = new URL('../src/gallery/', import.meta.url);
  const manifestUrl = new URL('manifest.json', gallery);
  const manifest = JSON.parse(readFileSync(manifestUrl, 'utf8')) as {
    templates: (Omit<GalleryManifestEntry, 'samples'> & {
      samples: { id: string; source: string; github?: GithubSpec }[];
    })[];
  };
  const { version, events } = webhookExamples();
  const written: string[] = [];
  for (const template of manifest.templates) {
    for (const sample of template.samples) {
      if (sample.github === undefined) continue;
      const example = githubExample(events, sample.github);
      const dir = new URL(`samples/${template.id}/`, gallery);
      mkdirSync(dir, { recursive: true });
      const file = fileURLToPath(new URL(`${sample.id}.json`, dir));
      writeFileSync(file, `${JSON.stringify(example, null, 2)}\n`);
      sample.source = githubSource(version, sample.github);
      written.push(file);
    }
  }
  writeFileSync(manifestUrl, `${JSON.stringify(manifest, null, 2)}\n`);
  // The repository's formatter owns JSON layout; the test compares values, not text.
  execFileSync('npx', ['biome', 'format', '--write', fileURLToPath(manifestUrl), ...written], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: 'inherit',
  });
  console.log(`${written.length} GitHub samples from ${WEBHOOK_EXAMPLES}@${version}`);
}
