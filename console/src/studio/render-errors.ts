import { ApiError } from '../api.ts';
import type { Marker } from '../editor/types.ts';
import type { RenderedMessage } from '../views/message-view.tsx';

/*
 * The render's errors where they belong. Template errors (40010 compile, 40011 render, 40016 a
 * feature Herald does not offer) carry the line and column in the template's text: a marker in
 * the editor. Card errors (40013 syntax, 40014 invalid) carry a place in the rendered card text,
 * which the editor does not show: they are shown under the preview with that line's excerpt.
 * Save warnings (the test render's problems) come as plain objects with the same code and data.
 */

export const TEMPLATE_POSITION_CODES: ReadonlySet<number> = new Set([40010, 40011, 40016]);
export const OUTPUT_CODES: ReadonlySet<number> = new Set([40013, 40014]);

interface Coded {
  code: number;
  message: string;
  data: Record<string, unknown>;
}

/** The code, message and data of an API error or a save warning (`{code, message, ...data}`). */
function coded(error: unknown): Coded | null {
  if (error instanceof ApiError) {
    const data =
      typeof error.data === 'object' && error.data !== null ? (error.data as Record<string, unknown>) : {};
    return { code: error.code, message: error.message, data };
  }
  if (typeof error === 'object' && error !== null) {
    const o = error as Record<string, unknown>;
    if (typeof o.code === 'number' && typeof o.message === 'string')
      return { code: o.code, message: o.message, data: o };
  }
  return null;
}

const position = (n: unknown): number | null =>
  typeof n === 'number' && Number.isInteger(n) && n >= 1 ? n : null;

/** The editor marker of a template error, or null (another error, or one without a place). */
export function markerOf(error: unknown, severity: Marker['severity'] = 'error'): Marker | null {
  const c = coded(error);
  if (!c || !TEMPLATE_POSITION_CODES.has(c.code)) return null;
  const line = position(c.data.line);
  const column = position(c.data.column);
  if (line === null || column === null) return null;
  return { line, column, message: c.message, severity };
}

/** The editor markers of a render's warnings (severity warning: the message still renders). */
export function warningMarkers(message: RenderedMessage | null): Marker[] {
  return (message?.warnings ?? []).flatMap((w) => {
    const line = position(w.line);
    const column = position(w.column);
    return line === null || column === null
      ? []
      : [{ line, column, message: w.message, severity: 'warning' }];
  });
}

export interface OutputError {
  code: number;
  message: string;
  /** Where in the rendered card text, when known. */
  line?: number;
  column?: number;
  /** That line of the rendered text (at most 160 characters around the column). */
  excerpt?: string;
}

/** A card error (about the rendered output), or null. */
export function outputErrorOf(error: unknown): OutputError | null {
  const c = coded(error);
  if (!c || !OUTPUT_CODES.has(c.code)) return null;
  const out: OutputError = { code: c.code, message: c.message };
  const line = position(c.data.line);
  const column = position(c.data.column);
  if (line !== null) out.line = line;
  if (column !== null) out.column = column;
  if (typeof c.data.excerpt === 'string') out.excerpt = c.data.excerpt;
  return out;
}
