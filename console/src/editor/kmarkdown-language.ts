import { markdownLanguage } from '@codemirror/lang-markdown';
import { LanguageSupport } from '@codemirror/language';

/**
 * KMarkdown's base colours: the Markdown parser (with GFM, for ~~strike~~) and nothing else.
 * Not lang-markdown's `markdown()`, which adds HTML in Markdown and so bundles the HTML, CSS and
 * JavaScript parsers (about 70 KB gzip), none of which KMarkdown has.
 */
export const kmarkdown = (): LanguageSupport => new LanguageSupport(markdownLanguage);
