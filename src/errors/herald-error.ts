import { CATALOGUE, catalogueMessage, type ErrorKey, type Lang, type ParamValue } from './catalogue.js';

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
    super(catalogueMessage(key, params, 'en-US'), { cause: options.cause });
    this.key = key;
    this.code = def.code;
    this.status = def.status;
    this.expose = def.status < 500;
    this.params = params;
    this.data = options.data;
  }

  /** The client-facing message in the caller's language. */
  localizedMessage(lang: Lang): string {
    return catalogueMessage(this.key, this.params, lang);
  }
}

export function isHeraldError(err: unknown): err is HeraldError {
  return err instanceof HeraldError;
}
