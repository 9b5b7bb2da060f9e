/**
 * The relay target answered 429: wait `waitMs` (from its X-Rate-Limit-Reset or Retry-After
 * header), then try again without spending an attempt.
 */
export class UpstreamRateLimitedError extends Error {
  override readonly name = 'UpstreamRateLimitedError';
  /** How long to wait before the next try, in ms. */
  readonly waitMs: number;

  constructor(waitMs: number) {
    super(`relay target rate-limited the bot; retry in ${waitMs} ms`);
    this.waitMs = waitMs;
  }
}
