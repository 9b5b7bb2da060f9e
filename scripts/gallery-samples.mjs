// Writes the gallery's GitHub sample payloads from @octokit/webhooks-examples (GitHub's webhook
// examples, kept by the Octokit maintainers) instead of hand-typed JSON:
//
//   npm run gallery:samples
//
// Every sample in src/gallery/manifest.json with a `github: {event, action?, index}` entry
// becomes src/gallery/samples/<template id>/<sample id>.json (that example, unchanged), and its
// `source` names the package version and example. test/domain/gallery-samples.test.ts fails when
// a committed sample no longer equals the package's example.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const gallery = join(root, 'src', 'gallery');
const manifestPath = join(gallery, 'manifest.json');
const require = createRequire(import.meta.url);
const PACKAGE = '@octokit/webhooks-examples';
const { version } = require(`${PACKAGE}/package.json`);
const webhooks = require(`${PACKAGE}/api.github.com/index.json`);

/** The `source` text of a sample taken from the package (the test checks the same text). */
export function githubSource(pkgVersion, { event, index }) {
  return `${PACKAGE}@${pkgVersion}, api.github.com/index.json: "${event}" example ${index} (https://github.com/octokit/webhooks/tree/main/payload-examples/api.github.com/${event})`;
}

const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
const written = [];
for (const template of manifest.templates) {
  for (const sample of template.samples) {
    const spec = sample.github;
    if (spec === undefined) continue;
    const examples = webhooks.find((e) => e.name === spec.event)?.examples;
    const example = examples?.[spec.index];
    if (example === undefined)
      throw new Error(`${template.id}/${sample.id}: no ${spec.event} example ${spec.index}`);
    // The index alone could silently point at another action after a package update.
    if (spec.action !== undefined && example.action !== spec.action) {
      throw new Error(
        `${template.id}/${sample.id}: example ${spec.index} is "${example.action}", not "${spec.action}"`,
      );
    }
    const dir = join(gallery, 'samples', template.id);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${sample.id}.json`);
    writeFileSync(file, `${JSON.stringify(example, null, 2)}\n`);
    sample.source = githubSource(version, spec);
    written.push(file);
  }
}
writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
// The repository's formatter owns JSON layout; the test compares values, not text.
execFileSync('npx', ['biome', 'format', '--write', manifestPath, ...written], {
  cwd: root,
  stdio: 'inherit',
});
console.log(`${written.length} GitHub samples from ${PACKAGE}@${version}`);
