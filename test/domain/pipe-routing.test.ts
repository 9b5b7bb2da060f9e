// Routing by event without services: where the event is read, which template it gets, the
// operators' settings, the presets against the gallery, and every gallery sample routed by its
// sender's preset with the sender's real headers.
import { describe, expect, it } from 'vitest';
import { formPayloadText } from '../../src/api/form-body.js';
import { listGallery } from '../../src/domain/gallery/index.js';
import {
  PIPE_PRESET_IDS,
  PIPE_PRESETS,
  presetGalleryIds,
  presetPipeInput,
} from '../../src/domain/pipes/routing/presets.js';
import {
  checkEventSource,
  checkRoutes,
  checkRoutingShape,
  decideRoute,
  eventOf,
  MAX_EVENT_LENGTH,
  type PipeRouting,
  requestVariables,
  routeRequest,
  routingOf,
  testRoute,
} from '../../src/domain/pipes/routing/routing.js';
import type { PipeRoutes } from '../../src/store/index.js';
import { nodeHeaders, senderRequest } from '../helpers/sender-requests.js';

const gallery = await listGallery();

const routing = (over: Partial<PipeRouting> = {}): PipeRouting => ({
  source: { header: 'x-github-event' },
  routes: new Map<string, string | null>([
    ['push', 'T-push'],
    ['ping', null],
  ]),
  fallback: null,
  ...over,
});

describe('eventOf', () => {
  it('reads a header by its lower-case name, repeated ones joined', () => {
    expect(eventOf({ header: 'x-github-event' }, { 'x-github-event': 'push' }, {})).toBe('push');
    expect(eventOf({ header: 'x-event' }, { 'x-event': ['a', 'b'] }, {})).toBe('a, b');
    expect(eventOf({ header: 'x-github-event' }, {}, { 'x-github-event': 'push' })).toBeNull();
    expect(eventOf({ header: 'x-github-event' }, { 'x-github-event': '' }, {})).toBeNull();
  });

  it('reads a body field by its path: strings, numbers and booleans; nothing else', () => {
    const body = { object_kind: 'push', data: { kind: 'event_alert', n: 3, b: true, o: {}, a: ['x'] } };
    expect(eventOf({ path: ['object_kind'] }, {}, body)).toBe('push');
    expect(eventOf({ path: ['data', 'kind'] }, {}, body)).toBe('event_alert');
    expect(eventOf({ path: ['data', 'n'] }, {}, body)).toBe('3');
    expect(eventOf({ path: ['data', 'b'] }, {}, body)).toBe('true');
    for (const path of [['data', 'o'], ['data', 'a'], ['data', 'none'], ['object_kind', 'x'], ['nope']]) {
      expect(eventOf({ path }, {}, body), path.join('.')).toBeNull();
    }
    // Not an object at the top (an array body), and no inherited properties.
    expect(eventOf({ path: ['0'] }, {}, ['push'])).toBeNull();
    expect(eventOf({ path: ['constructor'] }, {}, {})).toBeNull();
    expect(eventOf({ path: ['status'] }, {}, { status: null })).toBeNull();
  });

  it('cuts a long event to MAX_EVENT_LENGTH', () => {
    const long = 'e'.repeat(MAX_EVENT_LENGTH + 10);
    expect(eventOf({ header: 'x-e' }, { 'x-e': long }, {})).toBe('e'.repeat(MAX_EVENT_LENGTH));
  });
});

describe('decideRoute', () => {
  it("routes an event to its template, and a null route is answered as 'event_ignored'", () => {
    expect(decideRoute(routing(), 'push')).toEqual({ kind: 'route', event: 'push', template_id: 'T-push' });
    expect(decideRoute(routing(), 'ping')).toEqual({ kind: 'skip', event: 'ping', reason: 'event_ignored' });
  });

  it('sends an event without a route to the default template, or skips it without one', () => {
    expect(decideRoute(routing({ fallback: 'T-default' }), 'issues')).toEqual({
      kind: 'route',
      event: 'issues',
      template_id: 'T-default',
    });
    expect(decideRoute(routing({ fallback: 'T-default' }), null)).toEqual({
      kind: 'route',
      event: null,
      template_id: 'T-default',
    });
    expect(decideRoute(routing(), 'issues')).toEqual({
      kind: 'skip',
      event: 'issues',
      reason: 'no_template',
    });
    expect(decideRoute(routing(), null)).toEqual({ kind: 'skip', event: null, reason: 'no_event' });
    // A null route wins over the default: ping is not posted even where a default exists.
    expect(decideRoute(routing({ fallback: 'T-default' }), 'ping').kind).toBe('skip');
    // Event names match exactly.
    expect(decideRoute(routing(), 'Push').kind).toBe('skip');
  });

  it('hands the job the allow-listed headers only (never a signature or a token)', () => {
    const out = routeRequest(
      routing(),
      {
        'x-github-event': 'push',
        'x-hub-signature-256': 'sha256=abc',
        authorization: 'Pipe hrp_1.x',
        'user-agent': 'GitHub-Hookshot/1',
        cookie: 'a=b',
      },
      {},
    );
    expect(out).toEqual({
      message: {
        event: 'push',
        template_id: 'T-push',
        headers: { 'user-agent': 'GitHub-Hookshot/1', 'x-github-event': 'push' },
      },
    });
  });
});

describe('routingOf', () => {
  it('is null without event_source, and lower-cases a header / splits a body path', () => {
    expect(routingOf({ event_source: null, routes: {}, template_id: 'T' })).toBeNull();
    const r = routingOf({
      event_source: { header: 'X-GitHub-Event' },
      routes: { push: 'A' },
      template_id: null,
    });
    expect(r?.source).toEqual({ header: 'x-github-event' });
    expect(r?.routes.get('push')).toBe('A');
    expect(routingOf({ event_source: { body: 'data.kind' }, routes: {}, template_id: 'T' })?.source).toEqual({
      path: ['data', 'kind'],
    });
  });
});

describe("operators' settings", () => {
  it('takes a header name or a body path, and refuses anything else naming event_source', () => {
    expect(checkEventSource({ header: 'X-GitHub-Event' })).toEqual({ header: 'x-github-event' });
    expect(checkEventSource({ body: 'data.issue_alert.title' })).toEqual({ body: 'data.issue_alert.title' });
    for (const bad of [
      { header: 'X GitHub' },
      { header: 'x:y' },
      { header: 'Authorization' },
      { header: 'X-Hub-Signature-256' },
      { header: 'x-gitlab-token' },
      { body: 'a..b' },
      { body: '.a' },
      { body: 'a b' },
      { body: 'a.b.c.d.e.f.g.h.i' },
    ]) {
      expect(() => checkEventSource(bad), JSON.stringify(bad)).toThrow(
        expect.objectContaining({ code: 40000, data: { field: 'event_source' } }),
      );
    }
  });

  it("takes events of visible ASCII with inner spaces (GitLab's 'Push Hook'), and answers their templates", () => {
    expect(checkRoutes({ push: 'A', 'Push Hook': 'A', ping: null, 'x-y.z': 'B' })).toEqual(['A', 'B']);
    for (const bad of [
      { ' push': 'A' },
      { 'push ': 'A' },
      { 推送: 'A' },
      { ['e'.repeat(65)]: 'A' },
      { '': 'A' },
    ]) {
      expect(() => checkRoutes(bad as PipeRoutes), JSON.stringify(bad)).toThrow(
        expect.objectContaining({ data: { field: 'routes' } }),
      );
    }
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`e${i}`, 'A']));
    expect(() => checkRoutes(many)).toThrow(expect.objectContaining({ data: { field: 'routes' } }));
  });

  it('refuses routes without a source, and a source with nothing to render', () => {
    expect(() => checkRoutingShape({ event_source: null, routes: { push: 'A' }, template_id: null })).toThrow(
      expect.objectContaining({ data: { field: 'event_source' } }),
    );
    expect(() =>
      checkRoutingShape({ event_source: { header: 'x' }, routes: { ping: null }, template_id: null }),
    ).toThrow(expect.objectContaining({ data: { field: 'routes' } }));
    // Fine: a default alone (the template gets _event and _headers), routes alone, nothing at all.
    checkRoutingShape({ event_source: { header: 'x' }, routes: {}, template_id: 'T' });
    checkRoutingShape({ event_source: { header: 'x' }, routes: { push: 'A' }, template_id: null });
    checkRoutingShape({ event_source: null, routes: {}, template_id: null });
  });
});

describe('what a template sees', () => {
  it('gives _event and _headers to routed messages only', () => {
    expect(requestVariables({})).toBeUndefined();
    expect(requestVariables({ event: null })).toEqual({ _event: null, _headers: {} });
    expect(requestVariables({ event: 'push', headers: { 'x-github-event': 'push' } })).toEqual({
      _event: 'push',
      _headers: { 'x-github-event': 'push' },
    });
  });

  it("tests a routed pipe with its default template, or its first route's with the sender's header", () => {
    expect(testRoute({ event_source: null, routes: {}, template_id: 'T' })).toBeNull();
    expect(
      testRoute({
        event_source: { header: 'X-GitHub-Event' },
        routes: { ping: null, push: 'A' },
        template_id: null,
      }),
    ).toEqual({
      event: 'push',
      template_id: 'A',
      headers: { 'content-type': 'application/json', 'x-github-event': 'push' },
    });
    expect(
      testRoute({ event_source: { body: 'status' }, routes: { firing: 'A' }, template_id: 'D' }),
    ).toEqual({
      event: null,
      template_id: 'D',
      headers: { 'content-type': 'application/json' },
    });
  });
});

describe('presets', () => {
  it("route each sender's gallery templates by the sender's own event names", () => {
    for (const id of PIPE_PRESET_IDS) {
      const preset = PIPE_PRESETS[id];
      const own = gallery.filter((t) => t.sender === id);
      expect(own.length, id).toBeGreaterThan(0);
      // Every gallery template of the sender is routed, and the routes name only its templates.
      expect(presetGalleryIds(preset).sort(), id).toEqual(own.map((t) => t.id).sort());
      if ('header' in preset.event_source) {
        // Header senders: the route's event is the gallery's event name for it.
        for (const [event, galleryId] of Object.entries(preset.routes)) {
          expect(own.find((t) => t.id === galleryId)?.event, `${id} ${event}`).toBe(event);
        }
      }
    }
    expect(PIPE_PRESETS.github.ignore).toContain('ping');
  });

  it('make a null route for each ignored event and a route per event to its template', () => {
    const ids = new Map(presetGalleryIds(PIPE_PRESETS.github).map((g) => [g, `T:${g}`]));
    expect(presetPipeInput(PIPE_PRESETS.github, ids)).toEqual({
      event_source: { header: 'x-github-event' },
      routes: {
        push: 'T:github-push',
        pull_request: 'T:github-pull-request',
        issues: 'T:github-issues',
        release: 'T:github-release',
        workflow_run: 'T:github-workflow-run',
        ping: null,
      },
      preset: 'github',
    });
  });

  it("route every gallery sample of their sender, sent with the sender's real headers, to its template", () => {
    let routed = 0;
    for (const template of gallery) {
      for (const sample of template.samples) {
        const req = senderRequest(template, sample);
        if (req === null) continue;
        const preset = PIPE_PRESETS[req.preset];
        const ids = new Map(presetGalleryIds(preset).map((g) => [g, `T:${g}`]));
        const r = routingOf({ ...presetPipeInput(preset, ids), template_id: null } as never);
        const out = routeRequest(r as PipeRouting, nodeHeaders(req.headers), JSON.parse(req.body));
        expect(out, `${template.id}/${sample.id}`).toEqual({
          message: expect.objectContaining({ event: req.event, template_id: `T:${template.id}` }),
        });
        routed++;
      }
    }
    expect(routed).toBeGreaterThanOrEqual(25);
  });
});

describe('form bodies', () => {
  const form = (text: string) => Buffer.from(text, 'latin1');

  it('takes the JSON of the payload field, percent-decoded with + as a space', () => {
    const json = JSON.stringify({ ref: 'refs/heads/main', msg: 'a+b c & d=é 中' });
    expect(formPayloadText(form(`payload=${encodeURIComponent(json)}`))).toBe(json);
    expect(formPayloadText(form('a=1&payload=%7B%22x%22%3A%22y+z%22%7D&b=2'))).toBe('{"x":"y z"}');
    expect(formPayloadText(form('pay%6Coad=%7B%7D'))).toBe('{}');
    expect(formPayloadText(form('payload=%7B%7D&payload=%5B%5D'))).toBe('{}');
  });

  it('refuses a missing, empty or badly encoded payload naming the field', () => {
    for (const bad of [
      '',
      'a=1',
      'payload',
      'payload=',
      'payload=%7B%',
      'payload=%C3%28',
      'payload={"é":1}',
    ]) {
      expect(() => formPayloadText(form(bad)), bad).toThrow(
        expect.objectContaining({ code: 40000, data: { field: 'payload' } }),
      );
    }
    // Another field's undecodable name is no matter.
    expect(formPayloadText(form('%ZZ=1&payload=%7B%7D'))).toBe('{}');
  });
});
