import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import type { EditorState, Extension, TransactionSpec } from '@codemirror/state';
import { markerRanges } from './marker-ranges.ts';
import type { Marker } from './types.ts';

/** The lint gutter; markers come from outside (the render's answer) through `markersTransaction`. */
export const lintMarkers: Extension = lintGutter();

/** A transaction that shows `markers` (replacing those shown) as lint diagnostics. */
export function markersTransaction(state: EditorState, markers: readonly Marker[]): TransactionSpec {
  const diagnostics: Diagnostic[] = markerRanges(state.doc, markers).map((r) => ({
    from: r.from,
    to: r.to,
    severity: r.severity,
    message: r.message,
  }));
  return setDiagnostics(state, diagnostics);
}
