import {
  CATALOGUE,
  catalogueMessage,
  type ErrorParams,
  type Lang,
  type ParamValue,
} from '../../errors/index.js';
import type { DeliveryRecord } from '../../store/index.js';
import { reasonKey } from './reasons.js';

/*
 * A delivery's failure as its reader reads it: worded at read time, in the reader's language,
 * from the reason's catalogue entry and the parameters the record keeps. What a parameter holds
 * that is not the catalogue's (a relay's own error text) is shown as it was recorded.
 */

/** A failure as a record, a wait note or a dead job's description keeps it. */
export interface StoredFailure {
  readonly reason: string | null;
  readonly code: number | null;
  /** The message worded when it was recorded (English). */
  readonly message: string | null;
  /** The entry's parameters; null or absent: not kept (a record from before they were). */
  readonly params?: unknown;
}

const isParamValue = (v: unknown): v is ParamValue =>
  typeof v === 'string' ||
  typeof v === 'number' ||
  (typeof v === 'object' &&
    v !== null &&
    typeof (v as Record<string, unknown>)['zh-CN'] === 'string' &&
    typeof (v as Record<string, unknown>)['en-US'] === 'string');

/** Parameters as a store or Redis hands them back: null unless every value is one a message takes. */
export function storedParams(raw: unknown): ErrorParams | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const entries = Object.entries(raw);
  return entries.every(([, v]) => isParamValue(v)) ? (Object.fromEntries(entries) as ErrorParams) : null;
}

const PLACEHOLDER = /\{\w+\}/;
/** The error id at the end of a message worded in English (records from before params were kept). */
const RECORDED_ERROR_ID = / \(error id ([^)\s]+)\)$/;

/**
 * The failure's message in `lang`: its reason's catalogue entry (the one whose code it was
 * recorded with) filled from its parameters. Without parameters (a record from before they were
 * kept) only an entry that needs none is worded anew; otherwise, or for a code the catalogue
 * does not give that reason, the message as recorded.
 */
export function failureMessage(f: StoredFailure, lang: Lang): string | null {
  const key = f.reason === null ? undefined : reasonKey(f.reason);
  if (key === undefined || f.code === null || CATALOGUE[key].code !== f.code) return f.message;
  const params = storedParams(f.params);
  if (params !== null) return catalogueMessage(key, params, lang);
  // The error id is what links the answer to the worker's log line: taken back from the message.
  const id = f.message === null ? null : RECORDED_ERROR_ID.exec(f.message);
  const bare = catalogueMessage(key, id === null ? {} : { error_id: id[1]! }, lang);
  return PLACEHOLDER.test(bare) ? f.message : bare;
}

/** A record as a reader gets it: its message in `lang`, without the parameters it was worded from. */
export function readableRecord<T extends DeliveryRecord>(record: T, lang: Lang): Omit<T, 'params'> {
  const { params: _params, ...rest } = record;
  return { ...rest, message: failureMessage(record, lang) };
}
