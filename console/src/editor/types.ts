/** A template's language (Twig over the message format), or plain JSON for test data. */
export type EditorLanguage = 'twig-kmd' | 'twig-json' | 'twig-yaml' | 'twig-xml' | 'json';

/** A problem to mark in the text: 1-based line and column, as the render errors carry them. */
export interface Marker {
  line: number;
  column: number;
  message: string;
  severity: 'error' | 'warning';
}

export interface CodeEditorProps {
  value: string;
  language: EditorLanguage;
  onChange(value: string): void;
  markers?: readonly Marker[];
  /** The parsed test data, for `data.` completions. */
  completionData?: unknown;
  /** The editor's accessible name. */
  label: string;
  readOnly?: boolean;
}
