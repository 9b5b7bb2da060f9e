import { CATALOGUE, type ErrorKey, formatMessage, type Lang, type ParamValue } from './catalogue.js';

/** The " (error id {error_id})" a 5xx answer's message ends with. */
const ERROR_ID_CLAUSE = / \(error id \{error_id\}\)$/;

export type ErrorParams = Readonly<Record<string, ParamValue>>;

/**
 * The one error type every layer throws for an expected failure. It names a catalogue entry;
 * the HTTP layer turns it into the envelope. `expose` follows Koa: only errors below 500 show
 * their message to the client; a 5xx is logged and answered with a generic message.
 *
 * `data` is extra structured detail for the client (e.g. a compile error's line and column);
 * it goes into the envelope's `data` and must never hold secrets.
 */
export class HeraldError extends Error {
  override readonly name: string = 'HeraldError';
  readonly key: ErrorKey;
  readonly code: number;
  readonly status: number;
  readonly expose: boolean;
  readonly params: ErrorParams;
  readonly data: Readonly<Record<string, unknown>> | undefined;

  constructor(
    key: ErrorKey,
    params: ErrorParams = {},
    options: { data?: Readonly<Record<string, unknown>>; cause?: unknown } = {},
  ) {
    const def = CATALOGUE[key];
    // a 5xx's error id is given when it is answered; the log line carries it as a field of its own
    const text =
      params.error_id === undefined
        ? def.message['en-US'].replace(ERROR_ID_CLAUSE, '')
        : def.message['en-US'];
    super(formatMessage(text, params, 'en-US'), { cause: options.cause });
    this.key = key;
    this.code = def.code;
    this.status = def.status;
    this.expose = def.status < 500;
    this.params = params;
    this.data = options.data;
  }

  /** The client-facing message in the caller's language. */
  localizedMessage(lang: Lang): string {
    return formatMessage(CATALOGUE[this.key].message[lang], this.params, lang);
  }
}

export function isHeraldError(err: unknown): err is HeraldError {
  return err instanceof HeraldError;
}
