/*
 * The pipe page's Signature panel (docs/pipes.md, "Verified senders"): the scheme form and the
 * rotation's overlap turned into pipe/set-signature and pipe/rotate-signing-secret bodies, the
 * live secrets in words, and the two refusals the panel explains. No DOM, no API calls.
 */
import { translator } from './i18n.ts';
import type { PipeSignature } from './pipe-model.ts';

export const SCHEMES = ['none', 'github', 'gitlab', 'standard-webhooks', 'hmac-sha256'] as const;
export type Scheme = (typeof SCHEMES)[number];

export const ENCODINGS = ['hex', 'base64'] as const;
export type Encoding = (typeof ENCODINGS)[number];

/** The scheme form; header, encoding and prefix are read only for hmac-sha256. */
export interface SignatureForm {
  readonly scheme: Scheme;
  readonly header: string;
  readonly encoding: Encoding;
  readonly prefix: string;
  /** The operator's own secret; empty: Herald generates one. */
  readonly secret: string;
}

const isScheme = (s: string): s is Scheme => (SCHEMES as readonly string[]).includes(s);

/** The form filled from the pipe's current signature (never a secret: the view has none). */
export function signatureForm(sig: PipeSignature | null | undefined): SignatureForm {
  const scheme = sig && isScheme(sig.scheme) ? sig.scheme : 'none';
  return {
    scheme,
    header: scheme === 'hmac-sha256' ? (sig?.header ?? '') : '',
    encoding: sig?.encoding === 'base64' ? 'base64' : 'hex',
    prefix: scheme === 'hmac-sha256' ? (sig?.prefix ?? '') : '',
    secret: '',
  };
}

/** Headers the server refuses for hmac-sha256 (docs/pipes.md); checked here to say so beside the field. */
const RESERVED_HEADER =
  /^(authorization|cookie|host|content-.*|transfer-encoding|connection|idempotency-key)$/i;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/** The body of pipe/set-signature for a form, or the field that is wrong. */
export function setSignatureBody(
  id: string,
  f: SignatureForm,
):
  | { ok: true; body: { id: string; signature: string | Record<string, string> } }
  | { ok: false; field: 'header' } {
  if (f.scheme === 'none') return { ok: true, body: { id, signature: 'none' } };
  const secret = f.secret.trim();
  if (f.scheme !== 'hmac-sha256') {
    return { ok: true, body: { id, signature: secret === '' ? f.scheme : { scheme: f.scheme, secret } } };
  }
  const header = f.header.trim();
  if (!HEADER_NAME.test(header) || RESERVED_HEADER.test(header)) return { ok: false, field: 'header' };
  const signature: Record<string, string> = { scheme: 'hmac-sha256', header, encoding: f.encoding };
  if (f.prefix !== '') signature.prefix = f.prefix;
  if (secret !== '') signature.secret = secret;
  return { ok: true, body: { id, signature } };
}

/** How long the replaced secret keeps verifying after a rotation. */
export const OVERLAPS = [
  { key: 'none', seconds: 0 },
  { key: 'hour', seconds: 3600 },
  { key: 'day', seconds: 86_400 },
  { key: 'week', seconds: 604_800 },
] as const;
export type Overlap = (typeof OVERLAPS)[number]['key'];
/** The server's own default (86400 s): senders get a day to take the new secret. */
export const DEFAULT_OVERLAP: Overlap = 'day';

/** The body of pipe/rotate-signing-secret. */
export function rotateBody(id: string, overlap: Overlap): { id: string; overlap_s: number } {
  const o = OVERLAPS.find((x) => x.key === overlap) ?? OVERLAPS[2];
  return { id, overlap_s: o.seconds };
}

/** The secrets verifying now, and when the older one stops (ms), if two are live. */
export function liveSecrets(
  sig: PipeSignature | null | undefined,
  now: number,
): { count: number; previousEndsAt: number | null } {
  const live = (sig?.secrets ?? []).filter((s) => s.expires_at === null || s.expires_at > now);
  const ending = live.map((s) => s.expires_at).filter((e): e is number => e !== null);
  return { count: live.length, previousEndsAt: ending.length > 0 ? Math.min(...ending) : null };
}

/** Whether the current scheme has a secret to rotate (40913 otherwise). */
export const canRotate = (sig: PipeSignature | null | undefined): boolean => !!sig && sig.scheme !== 'none';

export const t = translator({
  'zh-CN': {
    heading: '发送方签名',
    current: '当前方案',
    live: '有效密钥',
    liveCount: '{count} 个',
    previousEnds: '旧密钥在 {time} 停止验证',
    schemeField: '方案',
    none: '不验证（只凭 URL 中的令牌）',
    github: 'GitHub（X-Hub-Signature-256）',
    gitlab: 'GitLab（X-Gitlab-Token）',
    'standard-webhooks': 'Standard Webhooks（webhook-signature）',
    'hmac-sha256': 'HMAC-SHA256（自定义请求头）',
    header: '签名请求头',
    headerBad:
      '填写一个请求头名称；不能是 Authorization、Cookie、Host、Content-*、Transfer-Encoding、Connection 或 Idempotency-Key。',
    encoding: '编码',
    prefix: '前缀（可选，例如 sha256=）',
    secret: '自己的密钥（可选）',
    secretHint: '留空则由 Herald 生成，并只显示一次。',
    change: '更改方案',
    changeTitle: '更改这个管道的签名方案？',
    changeBody:
      '更换方案或密钥会立即生效，没有过渡期：每个发送方都必须同步更新设置，否则它们的请求会被拒绝（401）。',
    changeToNone: '改为不验证后，任何拿到 URL 的人都能发送消息。',
    changed: '已更改签名方案。',
    rotateHeading: '更换签名密钥',
    overlap: '旧密钥继续有效',
    'overlap-none': '不保留（立即失效）',
    'overlap-hour': '1 小时',
    'overlap-day': '24 小时（默认）',
    'overlap-week': '7 天',
    rotate: '更换密钥',
    rotateTitle: '更换签名密钥？',
    rotateBody: '会生成新密钥。请在旧密钥失效前把新密钥填入发送方的设置。新密钥只显示一次。',
    rotateNoOverlap: '旧密钥会立即失效：发送方更新前的请求都会被拒绝。',
    newSecret: '新的签名密钥',
    noScheme: '这个管道没有签名方案，没有可更换的密钥：先选择一个方案。',
    noSecretsKey:
      '服务器没有配置 SECRETS_KEY，无法保存这个方案的密钥（gitlab 和「不验证」不需要）。请管理员设置 SECRETS_KEY（openssl rand -hex 32）后重启。',
  },
  'en-US': {
    heading: 'Sender signature',
    current: 'Scheme',
    live: 'Live secrets',
    liveCount: '{count}',
    previousEnds: 'The previous secret stops verifying at {time}',
    schemeField: 'Scheme',
    none: 'None (the token in the URL only)',
    github: 'GitHub (X-Hub-Signature-256)',
    gitlab: 'GitLab (X-Gitlab-Token)',
    'standard-webhooks': 'Standard Webhooks (webhook-signature)',
    'hmac-sha256': 'HMAC-SHA256 (a header you name)',
    header: 'Signature header',
    headerBad:
      'Name a header; not Authorization, Cookie, Host, Content-*, Transfer-Encoding, Connection or Idempotency-Key.',
    encoding: 'Encoding',
    prefix: 'Prefix (optional, e.g. sha256=)',
    secret: 'Your own secret (optional)',
    secretHint: 'Leave empty and Herald generates one, shown once.',
    change: 'Change the scheme',
    changeTitle: "Change this pipe's signature scheme?",
    changeBody:
      'A new scheme or secret takes effect at once, with no overlap: every sender must be updated, or its requests are refused (401).',
    changeToNone: 'With no scheme, anyone who has the URL can post.',
    changed: 'Signature scheme changed.',
    rotateHeading: 'Rotate the signing secret',
    overlap: 'The old secret keeps verifying for',
    'overlap-none': 'No overlap (it stops at once)',
    'overlap-hour': '1 hour',
    'overlap-day': '24 hours (default)',
    'overlap-week': '7 days',
    rotate: 'Rotate the secret',
    rotateTitle: 'Rotate the signing secret?',
    rotateBody:
      "A new secret is made. Put it into the senders' settings before the old one stops. The new secret is shown only once.",
    rotateNoOverlap: 'The old secret stops at once: requests are refused until the senders are updated.',
    newSecret: 'New signing secret',
    noScheme: 'This pipe has no signature scheme, so there is no secret to rotate: choose a scheme first.',
    noSecretsKey:
      'The server has no SECRETS_KEY, so it cannot keep this scheme\'s secret (gitlab and "none" need none). Ask an administrator to set SECRETS_KEY (openssl rand -hex 32) and restart.',
  },
});

/** The panel's own words for the refusals it can explain (40912, 40913); undefined otherwise. */
export function signatureErrorText(err: unknown): string | undefined {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  if (code === 40912) return t('noSecretsKey');
  if (code === 40913) return t('noScheme');
  return undefined;
}

export const schemeLabel = (s: Scheme): string => t(s);
export const overlapLabel = (o: Overlap): string => t(`overlap-${o}`);
