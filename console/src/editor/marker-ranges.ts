import type { Text } from '@codemirror/state';
import type { Marker } from './types.ts';

export interface MarkerRange {
  from: number;
  to: number;
  severity: Marker['severity'];
  message: string;
}

const WORD = /[A-Za-z0-9_\u007f-\uffff]/;

/**
 * Where a marker sits in `doc`: its line and column (1-based, columns in UTF-16 units as the
 * server counts them), clamped into the text, so a marker for text that has changed since the
 * render still lands on a line. It covers the word at that place, or one character, or (at a
 * line's end) nothing, which the lint extension draws as a point.
 */
export function markerRange(doc: Text, marker: Marker): MarkerRange {
  const lineNo = Math.min(Math.max(1, Math.trunc(marker.line) || 1), doc.lines);
  const line = doc.line(lineNo);
  const column = Math.min(Math.max(1, Math.trunc(marker.column) || 1), line.length + 1);
  const from = line.from + column - 1;
  let to = from;
  while (to < line.to && WORD.test(line.text[to - line.from]!)) to++;
  if (to === from && from < line.to) to = from + 1;
  return { from, to, severity: marker.severity, message: marker.message };
}

/** Every marker's range, in document order (the lint extension wants them sorted). */
export function markerRanges(doc: Text, markers: readonly Marker[]): MarkerRange[] {
  return markers.map((m) => markerRange(doc, m)).sort((a, b) => a.from - b.from || a.to - b.to);
}
