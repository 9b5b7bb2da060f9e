import { translator } from './i18n.ts';

/*
 * "Connect a sender" (docs/pipes.md, "Presets" and "Verified senders"): which senders there are,
 * the pipe/create body a form makes, the events to tick in the sender's settings (read from the
 * created pipe's routes) and the short instruction per sender. Pure (no DOM, no API calls), so the
 * unit tests read it directly; the screen only draws it.
 */

export const SENDERS = ['github', 'gitlab', 'alertmanager', 'grafana', 'sentry'] as const;
export type Sender = (typeof SENDERS)[number];

export const SENDER_NAMES: Readonly<Record<Sender, string>> = {
  github: 'GitHub',
  gitlab: 'GitLab',
  alertmanager: 'Alertmanager',
  grafana: 'Grafana',
  sentry: 'Sentry',
};

/**
 * Grafana (its webhook's HMAC option) and Sentry sign with a secret of their own, which the
 * operator copies into Herald as an `hmac-sha256` signature; these are the headers they send it in.
 */
export const OWN_SECRET_HEADERS: Readonly<Partial<Record<Sender, string>>> = {
  grafana: 'X-Grafana-Alerting-Signature',
  sentry: 'Sentry-Hook-Signature',
};

export const takesOwnSecret = (s: Sender): boolean => OWN_SECRET_HEADERS[s] !== undefined;

/** The bounds docs/pipes.md sets for an operator's `hmac-sha256` secret. */
export const OWN_SECRET_LENGTH = { min: 16, max: 256 } as const;

/** What the connect form holds. */
export interface ConnectForm {
  readonly sender: Sender;
  readonly botId: string;
  readonly channelId: string;
  readonly title: string;
  /** Grafana and Sentry only: sign with the sender's own secret. */
  readonly ownSecret: boolean;
  readonly secret: string;
  readonly header: string;
}

export const connectForm = (sender: Sender): ConnectForm => ({
  sender,
  botId: '',
  channelId: '',
  title: '',
  ownSecret: false,
  secret: '',
  header: OWN_SECRET_HEADERS[sender] ?? '',
});

export interface ConnectBody {
  bot_id: string;
  title: string;
  channel_id: string;
  preset: Sender;
  signature?: { scheme: 'hmac-sha256'; secret: string; header: string; encoding: 'hex' };
}

/**
 * The pipe/create body for a form, or the field that is wrong (checked here so its error shows
 * beside it at once; the server checks again).
 */
export function connectBody(
  f: ConnectForm,
): { ok: true; body: ConnectBody } | { ok: false; field: 'bot' | 'channel' | 'title' | 'secret' | 'header' } {
  const title = f.title.trim();
  if (f.botId === '') return { ok: false, field: 'bot' };
  if (f.channelId === '') return { ok: false, field: 'channel' };
  if (title === '' || title.length > 64) return { ok: false, field: 'title' };
  const body: ConnectBody = { bot_id: f.botId, title, channel_id: f.channelId, preset: f.sender };
  if (takesOwnSecret(f.sender) && f.ownSecret) {
    const secret = f.secret.trim();
    if (secret.length < OWN_SECRET_LENGTH.min || secret.length > OWN_SECRET_LENGTH.max) {
      return { ok: false, field: 'secret' };
    }
    const header = f.header.trim();
    if (!/^[A-Za-z0-9-]+$/.test(header)) return { ok: false, field: 'header' };
    body.signature = { scheme: 'hmac-sha256', secret, header, encoding: 'hex' };
  }
  return { ok: true, body };
}

/** docs/pipes.md, "At rest": the scheme seals its secret and the server has no SECRETS_KEY. */
export const NO_SECRETS_KEY = 40912;

/** Whether a create error is the missing SECRETS_KEY (explained, not just shown). */
export const isNoSecretsKey = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && (err as { code?: unknown }).code === NO_SECRETS_KEY;

/** The events a pipe's routes name: those posted (with their template) and those answered only. */
export function routedEvents(routes: Readonly<Record<string, string | null>> | null | undefined): {
  posted: { event: string; templateId: string }[];
  answered: string[];
} {
  const posted: { event: string; templateId: string }[] = [];
  const answered: string[] = [];
  for (const [event, templateId] of Object.entries(routes ?? {})) {
    if (templateId === null) answered.push(event);
    else posted.push({ event, templateId });
  }
  return { posted, answered };
}

/** The senders' own names for the events their settings offer to tick, where they differ. */
const EVENT_LABELS: Readonly<Partial<Record<Sender, Readonly<Record<string, string>>>>> = {
  github: {
    push: 'Pushes',
    pull_request: 'Pull requests',
    issues: 'Issues',
    release: 'Releases',
    workflow_run: 'Workflow runs',
  },
  gitlab: {
    push: 'Push events',
    tag_push: 'Tag push events',
    issue: 'Issues events',
    merge_request: 'Merge request events',
    pipeline: 'Pipeline events',
  },
};

/**
 * What to tick in the sender's settings, in its own words where it has a checkbox per event
 * (GitHub, GitLab): one entry per posted event, each once.
 */
export function eventsToTick(
  sender: Sender,
  routes: Readonly<Record<string, string | null>> | null | undefined,
): { event: string; label: string }[] {
  const labels = EVENT_LABELS[sender] ?? {};
  return routedEvents(routes).posted.map(({ event }) => ({ event, label: labels[event] ?? event }));
}

/** The content type to choose in the sender's settings (those that offer a choice). */
export const contentType = (_s: Sender): string => 'application/json';

const t = translator({
  'zh-CN': {
    github:
      '在仓库的 Settings → Webhooks → Add webhook：Payload URL 填下面的 URL，Content type 选 application/json，Secret 填下面的密钥，Which events 选「Let me select individual events」并勾选下列事件。',
    gitlab:
      '在项目的 Settings → Webhooks → Add new webhook：URL 填下面的 URL，Secret token 填下面的密钥，Trigger 勾选下列事件。',
    alertmanager:
      '在 alertmanager.yml 的 receiver 下加一个 webhook_configs 条目：url 填下面的 URL，并设 send_resolved: true。Alertmanager 不签名，URL 中的令牌就是凭据。',
    grafana:
      '在 Grafana 的 Alerting → Contact points → Add contact point：集成选 Webhook，URL 填下面的 URL，方法 POST。若设置了 HMAC 签名，把同一个密钥和请求头填到 Webhook 的 HMAC 设置里。',
    sentry:
      '在 Sentry 的 Settings → Developer Settings → Custom Integrations → Create an internal integration：Webhook URL 填下面的 URL，打开 Alert Rule Action；再在问题告警规则里添加动作「Send a notification via」这个集成。要验证签名，把集成的 Client Secret 填为自己的密钥。',
  },
  'en-US': {
    github:
      'In the repository\'s Settings → Webhooks → Add webhook: Payload URL the URL below, Content type application/json, Secret the secret below, and under Which events choose "Let me select individual events" and tick the events below.',
    gitlab:
      "In the project's Settings → Webhooks → Add new webhook: URL the URL below, Secret token the secret below, and under Trigger tick the events below.",
    alertmanager:
      'In alertmanager.yml, add a webhook_configs entry to a receiver: url the URL below, and send_resolved: true. Alertmanager signs nothing: the token in the URL is the credential.',
    grafana:
      "In Grafana, Alerting → Contact points → Add contact point: integration Webhook, URL the URL below, method POST. If you gave a secret of your own, put the same secret and header in the webhook's HMAC settings.",
    sentry:
      'In Sentry, Settings → Developer Settings → Custom Integrations → Create an internal integration: Webhook URL the URL below, Alert Rule Action on; then add the action "Send a notification via" the integration to an issue alert rule. To verify its signatures, give the integration\'s Client Secret as your own secret.',
  },
});

/** The short instruction for a sender's settings, in the console's language. */
export const instruction = (s: Sender): string => t(s);

/** The Alertmanager configuration a URL goes into (its settings are a file, not a form). */
export function alertmanagerConfig(url: string): string {
  return [
    'receivers:',
    '  - name: herald',
    '    webhook_configs:',
    `      - url: ${JSON.stringify(url)}`,
    '        send_resolved: true',
  ].join('\n');
}

/** The header each scheme reads (an `hmac-sha256` pipe names its own). */
const SCHEME_HEADERS: Readonly<Record<string, string>> = {
  github: 'X-Hub-Signature-256',
  gitlab: 'X-Gitlab-Token',
  'standard-webhooks': 'webhook-id, webhook-timestamp, webhook-signature',
};

const d = translator({
  'zh-CN': {
    none: '不验证签名（URL 中的令牌就是凭据）',
    scheme: '{scheme}，请求头 {header}',
    encoding: '，{encoding} 编码',
    prefix: '，前缀 {prefix}',
    secrets: '（{count} 个有效密钥）',
    header: '请求头 {name}',
    body: '请求体字段 {name}',
    notRouted: '不按事件路由',
  },
  'en-US': {
    none: 'Not checked (the token in the URL is the credential)',
    scheme: '{scheme}, header {header}',
    encoding: ', {encoding} encoded',
    prefix: ', prefix {prefix}',
    secrets: ' ({count} live secrets)',
    header: 'header {name}',
    body: 'body field {name}',
    notRouted: 'Not routed by event',
  },
});

/** A pipe's signature in words: its scheme and where the sender puts it, never a secret. */
export function signatureText(
  sig:
    | {
        scheme: string;
        header: string | null;
        encoding: string | null;
        prefix: string | null;
        secrets: readonly unknown[];
      }
    | null
    | undefined,
): string {
  if (!sig || sig.scheme === 'none') return d('none');
  let text = d('scheme', { scheme: sig.scheme, header: sig.header ?? SCHEME_HEADERS[sig.scheme] ?? '—' });
  if (sig.scheme === 'hmac-sha256') text += d('encoding', { encoding: sig.encoding ?? 'hex' });
  if (sig.prefix) text += d('prefix', { prefix: sig.prefix });
  if (sig.secrets.length > 1) text += d('secrets', { count: String(sig.secrets.length) });
  return text;
}

/** Where a routed pipe reads its event, in words. */
export function eventSourceText(src: { header?: string; body?: string } | null | undefined): string {
  if (src?.header) return d('header', { name: src.header });
  if (src?.body) return d('body', { name: src.body });
  return d('notRouted');
}
