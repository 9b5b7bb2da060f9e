import type { Extension } from '@codemirror/state';
import type { EditorLanguage } from './types.ts';

/**
 * The message format's language under the Twig layer, loaded when an editor first needs it: each
 * is its own chunk, so a KMarkdown template does not load the YAML parser and the other way round.
 */
export async function loadBaseLanguage(language: EditorLanguage): Promise<Extension> {
  switch (language) {
    case 'json':
    case 'twig-json':
      return (await import('@codemirror/lang-json')).json();
    case 'twig-yaml':
      return (await import('@codemirror/lang-yaml')).yaml();
    case 'twig-xml':
      return (await import('@codemirror/lang-xml')).xml();
    case 'twig-kmd':
      return (await import('./kmarkdown-language.ts')).kmarkdown();
  }
}

/** Whether the language is a template (Twig over a format), which gets the Twig layer and completion. */
export const isTemplateLanguage = (language: EditorLanguage): boolean => language !== 'json';
