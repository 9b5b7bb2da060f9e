import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../console/src/api.ts';
import {
  alertmanagerConfig,
  connectBody,
  connectForm,
  eventSourceText,
  eventsToTick,
  instruction,
  isNoSecretsKey,
  routedEvents,
  SENDERS,
  signatureText,
  takesOwnSecret,
} from '../../console/src/connect-model.ts';
import { lang } from '../../console/src/i18n.ts';
import { Connected, CreateError } from '../../console/src/screens/connect.tsx';
import { html, textOf } from './html.ts';

const before = lang.value;
afterEach(() => {
  lang.value = before;
});

/** GitHub's preset routes as pipe/create answers them (docs/pipes.md, "Presets"). */
const githubRoutes = {
  push: 't1',
  pull_request: 't2',
  issues: 't3',
  release: 't4',
  workflow_run: 't5',
  ping: null,
};

const filled = { botId: 'b1', channelId: 'c1', title: '  octo-org/herald  ' };

describe('connect a sender: the form', () => {
  it('makes a preset create body, the title trimmed, with no signature for the preset to choose', () => {
    expect(connectBody({ ...connectForm('github'), ...filled })).toEqual({
      ok: true,
      body: { bot_id: 'b1', title: 'octo-org/herald', channel_id: 'c1', preset: 'github' },
    });
    // A secret typed for GitHub is not sent: its preset generates one.
    const r = connectBody({ ...connectForm('github'), ...filled, ownSecret: true, secret: 'x'.repeat(20) });
    expect(r.ok && r.body.signature).toBeUndefined();
  });

  it('signs Grafana and Sentry with their own secret, in their own header, only when asked', () => {
    expect(takesOwnSecret('sentry')).toBe(true);
    expect(takesOwnSecret('grafana')).toBe(true);
    expect(SENDERS.filter(takesOwnSecret)).toEqual(['grafana', 'sentry']);
    const secret = 'a-client-secret-of-sentry';
    expect(connectBody({ ...connectForm('sentry'), ...filled, ownSecret: true, secret })).toEqual({
      ok: true,
      body: {
        bot_id: 'b1',
        title: 'octo-org/herald',
        channel_id: 'c1',
        preset: 'sentry',
        signature: { scheme: 'hmac-sha256', secret, header: 'Sentry-Hook-Signature', encoding: 'hex' },
      },
    });
    const grafana = connectBody({ ...connectForm('grafana'), ...filled, ownSecret: true, secret });
    expect(grafana.ok && grafana.body.signature?.header).toBe('X-Grafana-Alerting-Signature');
    const unsigned = connectBody({ ...connectForm('grafana'), ...filled, secret });
    expect(unsigned.ok && unsigned.body.signature).toBeUndefined();
  });

  it('names the wrong field', () => {
    const base = { ...connectForm('sentry'), ...filled };
    expect(connectBody({ ...base, botId: '' })).toEqual({ ok: false, field: 'bot' });
    expect(connectBody({ ...base, channelId: '' })).toEqual({ ok: false, field: 'channel' });
    expect(connectBody({ ...base, title: '   ' })).toEqual({ ok: false, field: 'title' });
    expect(connectBody({ ...base, title: 'x'.repeat(65) })).toEqual({ ok: false, field: 'title' });
    expect(connectBody({ ...base, ownSecret: true, secret: 'short' })).toEqual({
      ok: false,
      field: 'secret',
    });
    expect(connectBody({ ...base, ownSecret: true, secret: 'x'.repeat(257) })).toEqual({
      ok: false,
      field: 'secret',
    });
    expect(connectBody({ ...base, ownSecret: true, secret: 'x'.repeat(16), header: 'Bad Header' })).toEqual({
      ok: false,
      field: 'header',
    });
  });
});

describe('connect a sender: what to paste', () => {
  it('reads the events to tick from the routes, in the sender’s own words', () => {
    expect(routedEvents(githubRoutes)).toEqual({
      posted: [
        { event: 'push', templateId: 't1' },
        { event: 'pull_request', templateId: 't2' },
        { event: 'issues', templateId: 't3' },
        { event: 'release', templateId: 't4' },
        { event: 'workflow_run', templateId: 't5' },
      ],
      answered: ['ping'],
    });
    expect(eventsToTick('github', githubRoutes).map((e) => e.label)).toEqual([
      'Pushes',
      'Pull requests',
      'Issues',
      'Releases',
      'Workflow runs',
    ]);
    expect(eventsToTick('gitlab', { pipeline: 'x', note: 'y' })).toEqual([
      { event: 'pipeline', label: 'Pipeline events' },
      { event: 'note', label: 'note' },
    ]);
    expect(eventsToTick('alertmanager', { firing: 'a', resolved: 'a' }).map((e) => e.event)).toEqual([
      'firing',
      'resolved',
    ]);
    expect(routedEvents(null)).toEqual({ posted: [], answered: [] });
  });

  it('has an instruction per sender in both languages', () => {
    for (const l of ['en-US', 'zh-CN'] as const) {
      lang.value = l;
      const texts = SENDERS.map(instruction);
      expect(new Set(texts).size).toBe(SENDERS.length);
    }
    lang.value = 'en-US';
    expect(instruction('github')).toContain('Settings → Webhooks → Add webhook');
    expect(instruction('gitlab')).toContain('Secret token');
    expect(instruction('alertmanager')).toContain('webhook_configs');
    expect(instruction('grafana')).toContain('Contact points');
    expect(instruction('sentry')).toContain('internal integration');
    lang.value = 'zh-CN';
    expect(instruction('github')).toContain('勾选');
    expect(alertmanagerConfig('http://h/x?access_token=hrp_1')).toContain(
      'url: "http://h/x?access_token=hrp_1"',
    );
  });

  it('shows the URL and the secret once, the content type and the events, and links to the pipe', () => {
    lang.value = 'en-US';
    const markup = html(
      <Connected
        sender="github"
        answer={{
          pipe: { id: 'p1', title: 'octo-org/herald', routes: githubRoutes } as never,
          access_token: 'hrp_tok',
          url: 'http://h/api/v3/message/send-pipemsg?access_token=hrp_tok',
          signing_secret: 'sekret-shown-once',
        }}
      />,
    );
    const text = textOf(markup);
    expect(text).toContain('Created the pipe "octo-org/herald"');
    expect(markup).toContain('aria-label="Payload URL"');
    expect(markup).toContain('value="http://h/api/v3/message/send-pipemsg?access_token=hrp_tok"');
    expect(markup).toContain('aria-label="Secret"');
    expect(markup).toContain('value="sekret-shown-once"');
    expect(text).toContain('application/json');
    expect(text).toContain('Pull requests');
    expect(text).toContain('Answered, not posted: ping');
    // The secret goes nowhere but its own field: not in a link, not in the URL.
    expect(markup.match(/sekret-shown-once/g)).toHaveLength(1);
    expect(markup).toContain('href="/console/pipes/p1"');
  });

  it('says an unsigned sender has no secret', () => {
    lang.value = 'zh-CN';
    const text = textOf(
      html(
        <Connected
          sender="alertmanager"
          answer={{
            pipe: { id: 'p2', title: 'alerts', routes: { firing: 'a', resolved: 'a' } } as never,
            access_token: 'hrp_x',
            url: 'http://h/x?access_token=hrp_x',
          }}
        />,
      ),
    );
    expect(text).toContain('这个管道不验证签名。');
    expect(text).toContain('send_resolved: true');
  });
  it('does not show back a secret the operator gave (Sentry), naming its header instead', () => {
    lang.value = 'en-US';
    const markup = html(
      <Connected
        sender="sentry"
        ownSecret
        answer={{
          pipe: {
            id: 'p3',
            title: 'sentry',
            routes: { event_alert: 's1', installation: null },
            signature: {
              scheme: 'hmac-sha256',
              header: 'Sentry-Hook-Signature',
              encoding: 'hex',
              prefix: null,
              secrets: [],
            },
          } as never,
          access_token: 'hrp_y',
          url: 'http://h/y?access_token=hrp_y',
          signing_secret: 'the-operators-own-secret',
        }}
      />,
    );
    expect(markup).not.toContain('the-operators-own-secret');
    expect(textOf(markup)).toContain('checked with the secret you gave (header Sentry-Hook-Signature)');
    expect(textOf(markup)).toContain('Answered, not posted: installation');
  });
});

describe('the pipe screen’s sender facts', () => {
  it('says the scheme and its header, never a secret', () => {
    lang.value = 'en-US';
    const sig = {
      header: null,
      encoding: null,
      prefix: null,
      secrets: [{ created_at: 1, expires_at: null }],
    };
    expect(signatureText({ scheme: 'github', ...sig })).toBe('github, header X-Hub-Signature-256');
    expect(signatureText({ scheme: 'gitlab', ...sig })).toBe('gitlab, header X-Gitlab-Token');
    expect(
      signatureText({
        scheme: 'hmac-sha256',
        header: 'Sentry-Hook-Signature',
        encoding: 'base64',
        prefix: 'sha256=',
        secrets: [
          { created_at: 1, expires_at: 2 },
          { created_at: 3, expires_at: null },
        ],
      }),
    ).toBe('hmac-sha256, header Sentry-Hook-Signature, base64 encoded, prefix sha256= (2 live secrets)');
    expect(signatureText({ scheme: 'none', ...sig, secrets: [] })).toBe(
      'Not checked (the token in the URL is the credential)',
    );
    expect(signatureText(undefined)).toBe('Not checked (the token in the URL is the credential)');
    expect(eventSourceText({ header: 'x-github-event' })).toBe('header x-github-event');
    expect(eventSourceText({ body: 'object_kind' })).toBe('body field object_kind');
    expect(eventSourceText(null)).toBe('Not routed by event');
    lang.value = 'zh-CN';
    expect(signatureText({ scheme: 'github', ...sig })).toBe('github，请求头 X-Hub-Signature-256');
    expect(eventSourceText({ body: 'status' })).toBe('请求体字段 status');
  });
});

describe('connect a sender: a create that failed', () => {
  it('explains the missing SECRETS_KEY (409 40912), and shows any other error as the API said it', () => {
    lang.value = 'en-US';
    const noKey = new ApiError(409, 40912, 'SECRETS_KEY is not set');
    expect(isNoSecretsKey(noKey)).toBe(true);
    const text = textOf(html(<CreateError error={noKey} />));
    expect(text).toContain('The server has no SECRETS_KEY');
    expect(text).toContain('openssl rand -hex 32');
    expect(text).toContain('no pipe was made');
    const other = new ApiError(400, 40000, 'title: must be 1 to 64 characters');
    expect(isNoSecretsKey(other)).toBe(false);
    const otherText = textOf(html(<CreateError error={other} />));
    expect(otherText).toContain('title: must be 1 to 64 characters (40000)');
    expect(otherText).not.toContain('SECRETS_KEY');
    lang.value = 'zh-CN';
    expect(textOf(html(<CreateError error={noKey} />))).toContain('服务器没有设置 SECRETS_KEY');
  });
});
