import type { GallerySample, GalleryTemplate } from '../../src/domain/gallery/index.js';
import type { PipePresetId } from '../../src/domain/pipes/routing/presets.js';

/*
 * Requests as the senders make them, for the gallery's sample payloads: the body as it is, and
 * the headers each sender's documentation names (the event header, its delivery id, its user
 * agent). Used by the routing tests to send every sample the way its sender would.
 */

/** GitLab's X-Gitlab-Event for an object_kind (docs.gitlab.com webhook events). */
export const GITLAB_EVENT_HEADER: Readonly<Record<string, string>> = {
  push: 'Push Hook',
  tag_push: 'Tag Push Hook',
  issue: 'Issue Hook',
  merge_request: 'Merge Request Hook',
  pipeline: 'Pipeline Hook',
  note: 'Note Hook',
  build: 'Job Hook',
};

export interface SenderRequest {
  /** The preset for this sender. */
  readonly preset: PipePresetId;
  /** The event the sender names (header or body field). */
  readonly event: string;
  readonly headers: Record<string, string>;
  /** The JSON body as the sample holds it. */
  readonly body: string;
}

const JSON_TYPE = { 'Content-Type': 'application/json' };

/** The request `template`'s sender makes for `sample`; null for a sender no preset serves (generic). */
export function senderRequest(template: GalleryTemplate, sample: GallerySample): SenderRequest | null {
  const body = sample.data;
  const parsed = JSON.parse(body) as Record<string, unknown>;
  switch (template.sender) {
    case 'github':
      return {
        preset: 'github',
        event: template.event,
        headers: {
          ...JSON_TYPE,
          'User-Agent': 'GitHub-Hookshot/044aadd',
          'X-GitHub-Event': template.event,
          'X-GitHub-Delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
          'X-GitHub-Hook-ID': '292430182',
          'X-GitHub-Hook-Installation-Target-Type': 'repository',
        },
        body,
      };
    case 'gitlab': {
      const kind = String(parsed.object_kind);
      return {
        preset: 'gitlab',
        event: kind,
        headers: {
          ...JSON_TYPE,
          'User-Agent': 'GitLab/17.5.0',
          'X-Gitlab-Event': GITLAB_EVENT_HEADER[kind] ?? `${kind} Hook`,
          'X-Gitlab-Instance': 'https://gitlab.example.com',
          'X-Gitlab-Webhook-UUID': '13792a34-cac6-4fda-95a8-c58e00a3954e',
          'X-Gitlab-Event-UUID': '6ef2e7a4-a0b5-4a74-a39b-05b2b9ec1b39',
        },
        body,
      };
    }
    case 'alertmanager':
      return {
        preset: 'alertmanager',
        event: String(parsed.status),
        headers: { ...JSON_TYPE, 'User-Agent': 'Alertmanager/0.27.0' },
        body,
      };
    case 'grafana':
      return {
        preset: 'grafana',
        event: String(parsed.status),
        headers: { ...JSON_TYPE, 'User-Agent': 'Grafana' },
        body,
      };
    case 'sentry':
      return {
        preset: 'sentry',
        event: template.event,
        headers: {
          ...JSON_TYPE,
          'User-Agent': 'sentry-app/1.0',
          'Sentry-Hook-Resource': template.event,
          'Sentry-Hook-Timestamp': '1700000000',
          'Request-ID': 'c4b5e4d4-3e51-4b0e-9f46-5e1a8a4d3f7b',
        },
        body,
      };
    default:
      return null;
  }
}

/** Node's view of request headers: lower-case names. */
export const nodeHeaders = (headers: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
