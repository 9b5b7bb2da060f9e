/*
 * The template editor (issue 19): CodeMirror 6 with Twig highlighted over the message format,
 * lint markers from the render's errors, and completion of `data.` paths, filters and PLATFORM
 * methods. Import it only from a screen's chunk: it is the console's heaviest module.
 */
export { CodeEditor } from './code-editor.tsx';
export { languageOf } from './language-of.ts';
export type { CodeEditorProps, EditorLanguage, Marker } from './types.ts';
