import {
  childKeys,
  describeValue,
  PATH_SOURCE,
  parsePath,
  pathVariables,
  previewValue,
  resolvePath,
} from './data-paths.ts';
import { regionAt, scanTwig, type TwigScan } from './twig-scan.ts';
import {
  FILTER_PARAMS,
  FUNCTION_PARAMS,
  PLATFORM_FILTERS,
  PLATFORM_METHOD_PARAMS,
  PLATFORM_OBJECTS,
  type PlatformMethod,
  signature,
  TAGS,
  TEST_PARAMS,
  vocabularyText,
} from './twig-vocabulary.ts';

/*
 * What to offer at the cursor of a template, as plain data (the CodeMirror source in
 * twig-completion.ts only wraps it): `data.` paths of the test data, filters after `|`, tests
 * after `is`, PLATFORM/KOOK methods, tag names at the start of `{% %}`, and names otherwise.
 */

export type CandidateType = 'property' | 'method' | 'function' | 'keyword' | 'variable' | 'constant';

export interface Candidate {
  label: string;
  type: CandidateType;
  detail?: string;
  info?: string;
  /** Text to insert instead of the label. */
  apply?: string;
  /** Where the inserted text starts when it must also replace what precedes the word (a `.`). */
  replaceFrom?: number;
  /** Orders candidates (higher first) where the label order is not the useful one. */
  boost?: number;
}

export interface Completion {
  /** Start of the word being completed (the cursor when nothing is typed yet). */
  from: number;
  options: Candidate[];
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Keys that read as a `.name` part; others need `['key']`. */
const DOT_KEY = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+)$/;

/** The loop variable's fields (Twig's `loop`). */
const LOOP_FIELDS = ['index', 'index0', 'revindex', 'revindex0', 'first', 'last', 'length', 'parent'];

function filterCandidates(): Candidate[] {
  const own: ReadonlySet<string> = new Set(PLATFORM_FILTERS);
  return Object.entries(FILTER_PARAMS).map(([name, params]) =>
    own.has(name)
      ? {
          label: name,
          type: 'function',
          detail: `${signature(name, params)} · ${vocabularyText('platformFilter')}`,
          info: vocabularyText(name as (typeof PLATFORM_FILTERS)[number]),
          boost: 10,
        }
      : { label: name, type: 'function', detail: `${signature(name, params)} · ${vocabularyText('filter')}` },
  );
}

function testCandidates(): Candidate[] {
  return Object.entries(TEST_PARAMS).map(([name, params]) => ({
    label: name,
    type: 'keyword',
    detail: `${signature(name, params)} · ${vocabularyText('test')}`,
  }));
}

function methodCandidates(): Candidate[] {
  return Object.entries(PLATFORM_METHOD_PARAMS).map(([name, params]) => ({
    label: name,
    type: 'method',
    detail: signature(name, params),
    info: vocabularyText(name as PlatformMethod),
    apply: params.length === 0 ? `${name}()` : `${name}(`,
  }));
}

function tagCandidates(): Candidate[] {
  return TAGS.map((name) => ({ label: name, type: 'keyword', detail: vocabularyText('tag') }));
}

/** The keys below `pathText` (as written before the `.`), from the test data. */
function memberCandidates(
  pathText: string,
  dotAt: number,
  data: unknown,
  scan: TwigScan,
  text: string,
): Candidate[] | null {
  const path = parsePath(pathText);
  if (!path) return null;
  if (path.root === 'loop' && path.segments.length === 0) {
    return LOOP_FIELDS.map((f) => ({ label: f, type: 'property', detail: 'loop' }));
  }
  const vars = pathVariables(text, scan.regions, dotAt);
  if (path.root !== 'data' && !vars.has(path.root)) return null;
  const values = resolvePath(path, data, vars);
  return childKeys(values).map(({ key, value, index }) => {
    const c: Candidate = {
      label: key,
      type: 'property',
      detail: describeValue(value),
      info: previewValue(value),
      // Indexes after the keys: `.0` is rarely what one looks for first.
      boost: index ? -1 : 0,
    };
    if (!DOT_KEY.test(key)) {
      c.apply = `['${key.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`;
      c.replaceFrom = dotAt;
    }
    return c;
  });
}

function nameCandidates(text: string, scan: TwigScan, pos: number): Candidate[] {
  const vars = pathVariables(text, scan.regions, pos);
  const out: Candidate[] = [
    { label: 'data', type: 'variable', detail: vocabularyText('data'), boost: 5 },
    { label: PLATFORM_OBJECTS[0], type: 'variable', detail: vocabularyText('platform'), boost: 4 },
    { label: PLATFORM_OBJECTS[1], type: 'variable', detail: vocabularyText('kook') },
  ];
  for (const [name, path] of vars) {
    if (name === 'data' || (PLATFORM_OBJECTS as readonly string[]).includes(name)) continue;
    out.push({ label: name, type: 'variable', detail: `${path.root}.${path.segments.join('.')}`, boost: 3 });
  }
  if ([...vars.values()].some((p) => p.segments.at(-1) === '*')) {
    out.push({ label: 'loop', type: 'variable', detail: vocabularyText('loop') });
  }
  for (const [name, params] of Object.entries(FUNCTION_PARAMS)) {
    out.push({
      label: name,
      type: 'function',
      detail: `${signature(name, params)} · ${vocabularyText('function')}`,
    });
  }
  for (const atom of ['true', 'false', 'null']) out.push({ label: atom, type: 'constant' });
  return out;
}

/** Whether `pos` lies inside a quoted string of the region (after its opening quote). */
function inString(scan: TwigScan, text: string, pos: number): boolean {
  return scan.tokens.some((t) => {
    if (t.kind !== 'string' || pos <= t.from) return false;
    if (pos < t.to) return true;
    const closed = t.to - t.from > 1 && text[t.to - 1] === text[t.from];
    return pos === t.to && !closed;
  });
}

const FILTER_BEFORE = /\|\s*([A-Za-z_][A-Za-z0-9_]*)?$/;
const TEST_BEFORE = /(?:^|[^A-Za-z0-9_])is\s+(?:not\s+)?([A-Za-z_][A-Za-z0-9_]*)?$/;
const METHOD_BEFORE = /(?<![A-Za-z0-9_.])(?:PLATFORM|KOOK)\.([A-Za-z_][A-Za-z0-9_]*)?$/;
const MEMBER_BEFORE = new RegExp(`(?<![A-Za-z0-9_.\\]])(${PATH_SOURCE})\\.([A-Za-z0-9_]*)$`);
const NAME_BEFORE = /(?<![A-Za-z0-9_.])([A-Za-z_][A-Za-z0-9_]*)?$/;

/**
 * What to offer at `pos` of `text`, or null (outside `{{ }}` and `{% %}`, in a comment or a
 * string, or nowhere a name goes). `data` is the parsed test data. Without `explicit` (the
 * user asked with Ctrl-Space) nothing is offered before a name is started, except right after
 * `|`, `.` and `is `, where a list is what the author is waiting for.
 */
export function completionAt(
  text: string,
  pos: number,
  data: unknown,
  explicit = false,
  scan: TwigScan = scanTwig(text),
): Completion | null {
  const region = regionAt(scan.regions, pos);
  if (!region || region.kind === 'comment') return null;
  if (inString(scan, text, pos)) return null;
  const before = text.slice(region.innerFrom, pos);

  const filter = FILTER_BEFORE.exec(before);
  if (filter) return { from: pos - (filter[1]?.length ?? 0), options: filterCandidates() };

  const method = METHOD_BEFORE.exec(before);
  if (method) return { from: pos - (method[1]?.length ?? 0), options: methodCandidates() };

  const member = MEMBER_BEFORE.exec(before);
  if (member) {
    const word = member[2] ?? '';
    const options = memberCandidates(member[1]!, pos - word.length - 1, data, scan, text);
    return options ? { from: pos - word.length, options } : null;
  }

  const test = TEST_BEFORE.exec(before);
  if (test) return { from: pos - (test[1]?.length ?? 0), options: testCandidates() };

  const name = NAME_BEFORE.exec(before);
  if (!name) return null;
  const word = name[1] ?? '';
  if (word === '' && !explicit) return null;
  if (word !== '' && !IDENT.test(word)) return null;
  const from = pos - word.length;
  if (region.kind === 'block' && before.slice(0, before.length - word.length).trim() === '') {
    return { from, options: tagCandidates() };
  }
  return { from, options: nameCandidates(text, scan, pos) };
}
