import type { EditorLanguage } from './types.ts';

/** The editor language of a template's msgtype: 1 KMarkdown, 2 card JSON, 3 card YAML, 4 card XML. */
export function languageOf(msgtype: number): EditorLanguage {
  switch (msgtype) {
    case 2:
      return 'twig-json';
    case 3:
      return 'twig-yaml';
    case 4:
      return 'twig-xml';
    default:
      return 'twig-kmd';
  }
}
