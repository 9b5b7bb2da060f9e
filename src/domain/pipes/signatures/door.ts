import { HeraldError } from '../../../errors/index.js';
import { metricsFor } from '../../../metrics/index.js';
import type { CachedPipe } from '../pipe-cache.js';
import type { PipeDeps } from '../runtime.js';
import { SIGNATURE_TOLERANCE_S, signatureHeaderName } from './schemes.js';
import { type SignedRequest, verifySignature } from './verify.js';

/*
 * The signature step of send-pipemsg, after the token, the budget and the body: a pipe that
 * requires a signature takes only requests that carry a valid one. A refusal is 401 with its own
 * code, stores and captures nothing, is counted (herald_pipe_signature_checks_total) and logged
 * with the pipe, the scheme and the outcome: never a header's value, the body or a secret.
 */

/**
 * The idempotency key of a verified webhook-id. Its space keeps it apart from every
 * Idempotency-Key a sender can send (visible ASCII only), so the two never collide.
 */
export const webhookIdempotencyKey = (webhookId: string): string => `webhook-id ${webhookId}`;

/**
 * Checks the request's signature if the pipe requires one. Answers the idempotency key the
 * request's verified webhook-id stands for (standard-webhooks), or null; throws the refusal.
 */
export function checkPipeSignature(
  deps: PipeDeps,
  pipe: CachedPipe,
  headers: SignedRequest['headers'],
  wire: Buffer | null,
  decoded: Buffer,
): string | null {
  const check = pipe.signature;
  if (check === null) return null;
  const metrics = metricsFor(deps);
  if (check.unreadable !== null) {
    metrics.signatureChecks.inc({ scheme: check.scheme, outcome: 'unreadable' });
    // A 503: the handler logs it with an error id; the reason names a key id at most.
    throw new HeraldError('SIGNING_SECRET_UNREADABLE', {}, { cause: new Error(check.unreadable) });
  }
  const result = verifySignature(check, { headers, wire, decoded, now: deps.now() });
  metrics.signatureChecks.inc({ scheme: check.scheme, outcome: result.outcome });
  if (result.outcome === 'ok') {
    return result.webhookId === null ? null : webhookIdempotencyKey(result.webhookId);
  }
  deps.log.info('pipe signature refused', {
    pipe_id: pipe.id,
    scheme: check.scheme,
    outcome: result.outcome,
  });
  const header = result.missingHeader ?? signatureHeaderName(check.scheme, check.header);
  switch (result.outcome) {
    case 'missing':
      throw new HeraldError('SIGNATURE_MISSING', { header }, { data: { scheme: check.scheme, header } });
    case 'expired':
      throw new HeraldError(
        'SIGNATURE_EXPIRED',
        { tolerance_s: SIGNATURE_TOLERANCE_S },
        { data: { scheme: check.scheme, header: 'webhook-timestamp', tolerance_s: SIGNATURE_TOLERANCE_S } },
      );
    default:
      throw new HeraldError('SIGNATURE_INVALID', { header }, { data: { scheme: check.scheme, header } });
  }
}
