import { EditorView } from '@codemirror/view';

/**
 * The editor's look. The editor lives in a shadow root (see code-editor.tsx), where the console's
 * stylesheet does not reach; custom properties do, so it takes the console's colours and font
 * from them, and its height from `--editor-min-height` / `--editor-max-height` set on the host.
 */
export const editorTheme = EditorView.theme({
  '&': {
    fontSize: '13px',
    color: 'var(--text, #1d2129)',
    backgroundColor: '#ffffff',
    border: '1px solid var(--line, #e3e6eb)',
    borderRadius: 'var(--radius, 6px)',
    maxHeight: 'var(--editor-max-height, 70vh)',
  },
  '&.cm-focused': { outline: '3px solid var(--focus, #f59e0b)', outlineOffset: '2px' },
  '.cm-scroller': { fontFamily: 'var(--mono, ui-monospace, monospace)', lineHeight: '1.5', overflow: 'auto' },
  '.cm-content, .cm-gutter': { minHeight: 'var(--editor-min-height, 12rem)' },
  '.cm-gutters': {
    backgroundColor: 'var(--bg, #f6f7f9)',
    color: 'var(--muted, #6b7280)',
    borderRight: '1px solid var(--line, #e3e6eb)',
    borderTopLeftRadius: 'var(--radius, 6px)',
    borderBottomLeftRadius: 'var(--radius, 6px)',
  },
  '.cm-activeLine': { backgroundColor: 'rgba(47, 111, 237, 0.05)' },
  '.cm-activeLineGutter': { backgroundColor: 'rgba(47, 111, 237, 0.1)' },
  '&[data-readonly] .cm-content': { backgroundColor: 'var(--bg, #f6f7f9)' },
  '.cm-tooltip': { fontFamily: 'system-ui, sans-serif', fontSize: '13px' },
  '.cm-tooltip-lint': { maxWidth: '40rem' },
  '.cm-completionDetail': { color: 'var(--muted, #6b7280)', marginLeft: '1em', fontStyle: 'normal' },
});
