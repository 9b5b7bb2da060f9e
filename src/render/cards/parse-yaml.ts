import {
  type DocumentOptions,
  isAlias,
  isCollection,
  LineCounter,
  type ParseOptions,
  parseAllDocuments,
  type SchemaOptions,
  visit,
  type YAMLError,
} from 'yaml';
import type { LocalizedText } from '../../errors/index.js';
import { CardSyntaxError } from '../errors/card-syntax-error.js';
import { lineColumn } from './line-column.js';
import { indentQuotedContinuations } from './yaml-quoted-lines.js';

/**
 * Safe YAML: the template output is untrusted (it embeds user data), so only plain data is
 * accepted. Core schema (YAML 1.2: `yes` stays a string), one document, unique keys, and no
 * tags, anchors or aliases: tags could ask for types card JSON has no use for, and aliases are
 * how "billion laughs" documents blow up; cards never need either.
 */
export const YAML_OPTIONS = {
  // No custom tags are registered, and every explicit tag is refused below.
  schema: 'core',
  uniqueKeys: true,
  merge: false,
  prettyErrors: true,
  strict: true,
} satisfies ParseOptions & DocumentOptions & SchemaOptions;

export function parseYaml(text: string): unknown {
  try {
    return parseStrict(text);
  } catch (err) {
    // PHP's YAML readers take quoted scalars whose continuation lines are indented too little
    // (yaml-quoted-lines.ts); so does Herald, keeping the strict parse's error otherwise.
    const indented = err instanceof CardSyntaxError ? indentQuotedContinuations(text) : text;
    if (indented === text) throw err;
    try {
      return parseStrict(indented);
    } catch {
      throw err;
    }
  }
}

/** "X are not allowed", in each language. */
const notAllowed = (zh: string, en: string): LocalizedText => ({
  'zh-CN': `不允许使用${zh}`,
  'en-US': `${en} are not allowed`,
});

function parseStrict(text: string): unknown {
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { ...YAML_OPTIONS, lineCounter });
  // An empty text parses to no document at all; reject it here rather than as "not a list".
  const [document, second] = Array.isArray(documents) ? documents : [];
  if (document === undefined)
    throw new CardSyntaxError('yaml', { 'zh-CN': '文档是空的', 'en-US': 'the document is empty' });
  if (second !== undefined) {
    const start = second.range[0];
    throw new CardSyntaxError(
      'yaml',
      { 'zh-CN': '只能有一个 YAML 文档', 'en-US': 'only one YAML document is allowed' },
      lineColumn(text, start),
    );
  }
  const error = document.errors[0];
  if (error) throw fromYamlError(error);

  visit(document, {
    Pair(_key, pair) {
      // JS objects only have string keys; a list or map as a key would be silently stringified.
      if (isCollection(pair.key)) {
        throw new CardSyntaxError(
          'yaml',
          { 'zh-CN': '键必须是普通的值', 'en-US': 'keys must be plain values' },
          lineColumn(text, pair.key.range?.[0] ?? 0),
        );
      }
    },
    Node(_key, node) {
      const at = () => lineColumn(text, node.range?.[0] ?? 0);
      if (isAlias(node))
        throw new CardSyntaxError(
          'yaml',
          notAllowed(`别名（*${node.source}）`, `aliases (*${node.source})`),
          at(),
        );
      if (node.anchor)
        throw new CardSyntaxError(
          'yaml',
          notAllowed(`锚点（&${node.anchor}）`, `anchors (&${node.anchor})`),
          at(),
        );
      if (node.tag) {
        const shown = node.tag.replace(/^tag:yaml\.org,2002:/, '!!');
        throw new CardSyntaxError('yaml', notAllowed(`标签（${shown}）`, `tags (${shown})`), at());
      }
    },
  });
  // Anything else the composer only warned about is refused too: a card has no use for it.
  const warning = document.warnings[0];
  if (warning) throw fromYamlError(warning);
  return document.toJS({ maxAliasCount: 0 });
}

/** The parser's first message line (it ends with the position) plus the position as data. */
function fromYamlError(error: YAMLError): CardSyntaxError {
  const detail = error.message.split(':\n')[0]?.replace(/ at line \d+, column \d+$/, '') ?? error.message;
  const pos = error.linePos?.[0];
  return new CardSyntaxError('yaml', detail, pos ? { line: pos.line, column: pos.col } : undefined);
}
