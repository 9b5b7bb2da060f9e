// The gallery's templates as the platform would run them: the conformance cases built from
// src/gallery are committed and current, PHP Twig rendered every one of them without error
// (test/render/conformance.test.ts checks Herald's output equals PHP's byte for byte), and every
// render is a message the platform accepts, with sender text escaped and cut.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  buildGalleryCases,
  casesFileText,
  GALLERY_CASES_FILE,
  LONG_TEXT,
} from '../../scripts/gallery-cases.js';
import { readGalleryManifest } from '../../src/domain/gallery/index.js';
import { convertCard } from '../../src/render/cards/index.js';
import type { CardFormat } from '../../src/render/cards/types.js';
import { compileTemplate, parseJsonData, renderMessage } from '../../src/render/index.js';
import type { PlatformContext } from '../../src/render/platform.js';

const FIXED_NOW = Date.UTC(2024, 0, 15, 12, 0, 0);
/** Output is checked here, not speed: a busy machine must not hit the 50 ms render bound. */
const UNTIMED = { limits: { maxRenderMs: 5_000 } };
const CARD_FORMAT: Readonly<Record<number, CardFormat>> = { 2: 'json', 3: 'yaml', 4: 'xml' };
const manifest = await readGalleryManifest();
const cases = await buildGalleryCases();
const expected = JSON.parse(
  readFileSync(new URL('conformance/expected/gallery.json', import.meta.url), 'utf8'),
) as Record<string, { output?: string; error?: true }>;

const entryOf = (name: string) => {
  const entry = manifest.find((e) => name.startsWith(`gallery-${e.id}-`));
  if (!entry) throw new Error(`no gallery entry for case ${name}`);
  return entry;
};

interface Element {
  type?: string;
  content?: string;
  fields?: Element[];
  text?: Element | string;
  elements?: Element[];
  accessory?: Element;
}

/** Every KMarkdown text of a card message (the text a mention or markup could hide in). */
function kmarkdownTexts(cards: { modules: Element[] }[]): string[] {
  const out: string[] = [];
  const walk = (e: Element | string | undefined) => {
    if (e === undefined || typeof e === 'string') return;
    if (e.type === 'kmarkdown' && typeof e.content === 'string') out.push(e.content);
    for (const child of [e.text, e.accessory, ...(e.fields ?? []), ...(e.elements ?? [])]) walk(child);
  };
  for (const card of cards) for (const m of card.modules) walk(m);
  return out;
}

/** KMarkdown without its code spans (their text is shown as is, markup and mentions included). */
const outsideCode = (kmd: string) => kmd.replace(/`[^`]*`/g, '');

describe('gallery conformance cases', () => {
  it('are committed as scripts/gallery-cases.ts builds them (run npm run gallery:cases, then conformance:regen)', () => {
    expect(readFileSync(GALLERY_CASES_FILE, 'utf8')).toBe(casesFileText(cases));
  });

  it('cover every template with every sample and variant, missing optional fields, long text and an empty object', () => {
    const names = new Set(cases.map((c) => c.name));
    for (const entry of manifest) {
      for (const s of entry.samples) expect(names.has(`gallery-${entry.id}-${s.id}`)).toBe(true);
      for (const v of entry.variants ?? [])
        expect(names.has(`gallery-${entry.id}-variant-${v.id}`)).toBe(true);
      for (const variant of ['missing-optional', 'long-text', 'empty-object']) {
        expect(names.has(`gallery-${entry.id}-${variant}`), `${entry.id} ${variant}`).toBe(true);
      }
    }
  });

  it('were rendered by PHP Twig without an error', () => {
    for (const c of cases) expect(expected[c.name], c.name).toHaveProperty('output');
  });
});

describe.each(cases.map((c) => [c.name, c] as const))('gallery case %s', (name, c) => {
  const entry = entryOf(name);
  const data = parseJsonData(JSON.stringify(c.data));
  const render = () =>
    renderMessage(
      { compiled: compileTemplate(c.template, UNTIMED), msgtype: entry.msgtype },
      data,
      {} as PlatformContext,
      {
        now: FIXED_NOW,
      },
    );

  it('renders to a message the platform accepts, the same one PHP Twig produced', () => {
    const message = render();
    expect(message.type).toBe(entry.msgtype === 1 ? 9 : 10);
    const php = expected[name]?.output;
    if (entry.msgtype === 1) {
      expect(message.content).toBe(php);
      return;
    }
    // PHP's text, read as the card it is, is the card Herald sends.
    const fromPhp = convertCard(php ?? '', CARD_FORMAT[entry.msgtype]!, FIXED_NOW);
    expect(JSON.parse(message.content)).toEqual(fromPhp);
  });

  it('keeps sender text from turning into KMarkdown mentions or markup', () => {
    const message = render();
    const texts = message.type === 9 ? [message.content] : kmarkdownTexts(JSON.parse(message.content));
    for (const text of texts) {
      // The long text holds "(met)all(met)" (a mention of everyone) and a link; escaped, neither is live.
      expect(outsideCode(text)).not.toMatch(/(?<!\\)\(met\)/);
      expect(outsideCode(text)).not.toContain('[brackets](https://example.com/x)');
    }
  });

  if (name.endsWith('-long-text')) {
    it('cuts long sender text instead of sending it whole', () => {
      const message = render();
      expect(message.content).toContain('…');
      expect(message.content).not.toContain(LONG_TEXT.slice(0, 900));
    });
  }
});
