import type Router from '@koa/router';
import { pipeView } from '../../domain/pipes/pipes.js';
import type { PipeDeps } from '../../domain/pipes/runtime.js';
import {
  checkSignatureSetting,
  resealSigningSecrets,
  rotateSigningSecret,
  type SignatureSetting,
  setPipeSignature,
} from '../../domain/pipes/signatures/manage.js';
import {
  HMAC_ENCODINGS,
  MAX_ROTATION_OVERLAP_S,
  MAX_SECRET_LENGTH,
  SIGNATURE_SCHEMES,
  type SignatureInput,
  type SignatureScheme,
} from '../../domain/pipes/signatures/schemes.js';
import { ValidationError } from '../../errors/index.js';
import { requireAdmin } from '../auth.js';
import { reply } from '../reply.js';
import type { HeraldState } from '../state.js';
import { compileValidator, idSchema } from '../validation.js';

/*
 * Back office for verified senders (docs/pipes.md, "Verified senders"): a pipe's `signature` on
 * pipe/create (admin-pipes.ts), pipe/set-signature, pipe/rotate-signing-secret and
 * pipe/reseal-secrets (after a SECRETS_KEY change). A secret is
 * in the answer of the call that made it, and nowhere else.
 */

/** `signature` in a request: a scheme's name, or an object with the scheme and its options. */
export const signatureSchema = {
  type: ['string', 'object'],
  properties: {
    scheme: { type: 'string', enum: [...SIGNATURE_SCHEMES] },
    secret: { type: 'string', minLength: 1, maxLength: MAX_SECRET_LENGTH },
    header: { type: 'string', minLength: 1, maxLength: 64 },
    encoding: { type: 'string', enum: [...HMAC_ENCODINGS] },
    prefix: { type: 'string', maxLength: 32 },
  },
  required: ['scheme'],
} as const;

export type SignatureBody = string | SignatureInput;

/** The checked setting of a request's `signature` (copying only known fields). */
export function signatureSettingOf(body: SignatureBody, field = 'signature'): SignatureSetting {
  if (typeof body === 'string') {
    if (!(SIGNATURE_SCHEMES as readonly string[]).includes(body)) {
      throw new ValidationError(field, {
        'zh-CN': `必须是以下签名方式之一：${SIGNATURE_SCHEMES.join(', ')}`,
        'en-US': `must be one of ${SIGNATURE_SCHEMES.join(', ')}`,
      });
    }
    return checkSignatureSetting({ scheme: body as SignatureScheme }, field);
  }
  return checkSignatureSetting(
    {
      scheme: body.scheme,
      ...(body.secret !== undefined ? { secret: body.secret } : {}),
      ...(body.header !== undefined ? { header: body.header } : {}),
      ...(body.encoding !== undefined ? { encoding: body.encoding } : {}),
      ...(body.prefix !== undefined ? { prefix: body.prefix } : {}),
    },
    field,
  );
}

/** `signature` sent to pipe/update: it is changed with pipe/set-signature. */
export const signatureNotUpdatable = (): ValidationError =>
  new ValidationError('signature', {
    'zh-CN': '请用 pipe/set-signature 修改（其应答会一次性显示新密钥）',
    'en-US': 'is changed with pipe/set-signature (whose answer shows a new secret once)',
  });

const setBody = compileValidator<{ id: string; signature: SignatureBody }>({
  type: 'object',
  properties: { id: idSchema, signature: signatureSchema },
  required: ['id', 'signature'],
});
const rotateBody = compileValidator<{ id: string; overlap_s?: number; secret?: string }>({
  type: 'object',
  properties: {
    id: idSchema,
    overlap_s: { type: 'integer', minimum: 0, maximum: MAX_ROTATION_OVERLAP_S },
    secret: { type: 'string', minLength: 1, maxLength: MAX_SECRET_LENGTH },
  },
  required: ['id'],
});

export function adminPipeSignatureRoutes(router: Router<HeraldState>, deps: PipeDeps): void {
  const admin = requireAdmin(deps);

  router.post('/admin/api/pipe/set-signature', admin, async (ctx) => {
    const body = setBody(ctx.request.body);
    const change = await setPipeSignature(deps, body.id, signatureSettingOf(body.signature));
    reply(ctx, { ...change, pipe: pipeView(deps, change.pipe) });
  });

  router.post('/admin/api/pipe/rotate-signing-secret', admin, async (ctx) => {
    const body = rotateBody(ctx.request.body);
    const rotated = await rotateSigningSecret(deps, body.id, {
      ...(body.overlap_s !== undefined ? { overlapS: body.overlap_s } : {}),
      ...(body.secret !== undefined ? { secret: body.secret } : {}),
    });
    reply(ctx, { ...rotated, pipe: pipeView(deps, rotated.pipe) });
  });

  router.post('/admin/api/pipe/reseal-secrets', admin, async (ctx) => {
    reply(ctx, await resealSigningSecrets(deps));
  });
}
