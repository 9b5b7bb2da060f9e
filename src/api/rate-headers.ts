import { HeraldError } from '../errors/index.js';
import type { BucketResult } from '../ratelimit/token-bucket.js';

/** The X-Rate-Limit-* headers the platform's clients read, on every answer of a metered route. */
export function rateLimitHeaders(r: BucketResult, bucket: string): Record<string, string> {
  return {
    'X-Rate-Limit-Limit': String(r.limit),
    'X-Rate-Limit-Remaining': String(r.remaining),
    'X-Rate-Limit-Reset': String(Math.ceil(r.resetMs / 1000)),
    'X-Rate-Limit-Bucket': bucket,
  };
}

/** 429 when the bucket refused the request (its headers are set first, by the caller). */
export function refuseIfLimited(r: BucketResult): void {
  if (!r.allowed) throw new HeraldError('RATE_LIMITED', { retry_after: Math.ceil(r.retryAfterMs / 1000) });
}
