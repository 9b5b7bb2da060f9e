import { ApiError } from '../api.ts';
import { ErrorNote } from './components.tsx';

/*
 * Errors shown where they belong: the API's validation envelope names the field
 * (`data.field`, e.g. `img_list[0].url`), and the form checks a few things itself before
 * sending. A message that no shown field claims is drawn once under the form.
 */

/** Messages a form found itself, by the API's field name. */
export type LocalErrors = Readonly<Record<string, string>>;

/** The field an API error names, if any. */
export function apiErrorField(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const data = error.data as { field?: unknown } | null;
  return data && typeof data.field === 'string' && data.field !== '' ? data.field : undefined;
}

/** `actual` is `wanted` or lies inside it (`img_list[0].url` inside `img_list`). */
export const fieldWithin = (actual: string, wanted: string): boolean =>
  actual === wanted || actual.startsWith(`${wanted}[`) || actual.startsWith(`${wanted}.`);

/** The message to show at `field`: the form's own, else the API error's when it names the field exactly. */
export function fieldMessage(field: string, error: unknown, local: LocalErrors = {}): string | undefined {
  if (local[field] !== undefined) return local[field];
  const at = apiErrorField(error);
  return at !== undefined && at === field && error instanceof Error ? error.message : undefined;
}

/** A message under a control; inside the control's label, so it is read with it. */
export function FieldError(props: { message: string | undefined }) {
  if (props.message === undefined) return null;
  return <span class="field-error">{props.message}</span>;
}

/**
 * The error of a form's last submit, unless one of `fields` (the fields the form draws a
 * message at) already shows it.
 */
export function FormError(props: { error: unknown; fields: readonly string[]; local?: LocalErrors }) {
  const { error } = props;
  if (error === undefined || error === null) return null;
  const at = apiErrorField(error);
  if (at !== undefined && props.fields.includes(at)) return null;
  return <ErrorNote error={error} />;
}
