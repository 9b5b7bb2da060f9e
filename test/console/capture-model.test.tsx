import { renderToString } from 'preact-render-to-string';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bodyView,
  type Capture,
  eventOf,
  formatBytes,
  headerRows,
  indentJson,
  isJsonType,
  newestFirst,
} from '../../console/src/capture-model.ts';
import { lang } from '../../console/src/i18n.ts';
import type { Pipe } from '../../console/src/pipe-model.ts';
import { CaptureBody, CaptureList, keepsLine, PipeCaptures } from '../../console/src/ui/pipe-captures.tsx';
import { tags, textOf } from './html.ts';

const before = lang.value;
afterEach(() => {
  lang.value = before;
});

const capture = (over: Partial<Capture> = {}): Capture => ({
  id: 'm1',
  received_at: '2025-01-02T03:04:05.678Z',
  content_type: 'application/json',
  size: 15,
  headers: { 'content-type': 'application/json' },
  body: '{"text":"hello"}',
  too_large: false,
  ...over,
});

describe('capture helpers', () => {
  it('orders captures newest first', () => {
    const items = [
      capture({ id: 'old', received_at: '2025-01-01T00:00:00.000Z' }),
      capture({ id: 'new', received_at: '2025-01-03T00:00:00.000Z' }),
      capture({ id: 'mid', received_at: '2025-01-02T00:00:00.000Z' }),
    ];
    expect(newestFirst(items).map((c) => c.id)).toEqual(['new', 'mid', 'old']);
    // The input is left as it was.
    expect(items[0]!.id).toBe('old');
  });

  it('sizes bodies in B, KB and MB', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1,023 B');
    expect(formatBytes(1024)).toBe('1 KB');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(65_536)).toBe('64 KB');
    expect(formatBytes(65_537)).toBe('64 KB');
    expect(formatBytes(2.5 * 1024 * 1024)).toBe('2.5 MB');
    expect(formatBytes(1536, 'zh-CN')).toBe('1.5 KB');
  });

  it('lists headers by name', () => {
    expect(
      headerRows({
        'x-github-event': 'push',
        'content-type': 'application/json',
        'user-agent': 'GitHub-Hookshot/1',
      }),
    ).toEqual([
      ['content-type', 'application/json'],
      ['user-agent', 'GitHub-Hookshot/1'],
      ['x-github-event', 'push'],
    ]);
    expect(headerRows({})).toEqual([]);
  });

  it("names the sender's event from its headers", () => {
    expect(eventOf({ 'x-gitlab-event': 'Push Hook', 'user-agent': 'GitLab/17.0.0' })).toBe('Push Hook');
    expect(eventOf({ 'x-github-event': 'pull_request' })).toBe('pull_request');
    expect(eventOf({ 'sentry-hook-resource': 'issue' })).toBe('issue');
    expect(eventOf({ 'content-type': 'application/json' })).toBeNull();
  });

  it('knows JSON content types', () => {
    expect(isJsonType('application/json')).toBe(true);
    expect(isJsonType('application/json; charset=utf-8')).toBe(true);
    expect(isJsonType('Application/Vnd.Api+JSON')).toBe(true);
    expect(isJsonType('text/plain')).toBe(false);
    expect(isJsonType('application/x-www-form-urlencoded')).toBe(false);
    expect(isJsonType(null)).toBe(false);
  });
});

describe('laying out JSON', () => {
  it('indents like JSON.stringify(…, null, 2) where parsing loses nothing', () => {
    const text = '{"a":1,"b":[true,null,{"c":"d"}],"e":{},"f":[],"g":{"h":-1.5}}';
    expect(indentJson(text)).toBe(JSON.stringify(JSON.parse(text), null, 2));
    const spaced = ' [ 1 ,\n\t2 , { "x" : [ ] } ]\r\n';
    expect(indentJson(spaced)).toBe(JSON.stringify(JSON.parse(spaced), null, 2));
  });

  it('keeps what the sender sent: big numbers, key order, escapes, punctuation inside strings', () => {
    const text =
      '{"b":1,"2":2,"id":12345678901234567890,"e":-1.5e3,"s":"a, {b}: [c] \\"q\\" \\\\","u":"\\u00e9"}';
    expect(indentJson(text)).toBe(
      [
        '{',
        '  "b": 1,',
        '  "2": 2,',
        '  "id": 12345678901234567890,',
        '  "e": -1.5e3,',
        '  "s": "a, {b}: [c] \\"q\\" \\\\",',
        '  "u": "\\u00e9"',
        '}',
      ].join('\n'),
    );
    // JSON.parse would have moved "2" first and rounded the id.
    expect(JSON.stringify(JSON.parse(text), null, 2)).not.toBe(indentJson(text));
  });

  it('keeps whitespace inside strings', () => {
    expect(indentJson('{"a":"x  y\\n"}')).toBe('{\n  "a": "x  y\\n"\n}');
  });
});

describe("a capture's body", () => {
  it('is "too large" when the server kept no text', () => {
    expect(bodyView(capture({ body: null, too_large: true }))).toEqual({ kind: 'too_large' });
    expect(bodyView(capture({ body: null, too_large: false }))).toEqual({ kind: 'too_large' });
  });

  it('is empty for a POST without a body', () => {
    expect(bodyView(capture({ body: '', content_type: null }))).toEqual({ kind: 'empty' });
  });

  it('is laid out when it is JSON, by content type or by shape', () => {
    expect(bodyView(capture())).toEqual({
      kind: 'json',
      text: '{\n  "text": "hello"\n}',
      hidden: 0,
      notPretty: false,
    });
    expect(bodyView(capture({ content_type: 'text/plain', body: '[1,2]' }))).toMatchObject({
      kind: 'json',
      text: '[\n  1,\n  2\n]',
    });
    expect(bodyView(capture({ body: '"just a string"' }))).toMatchObject({
      kind: 'json',
      text: '"just a string"',
    });
  });

  it('is raw when it is not JSON', () => {
    expect(bodyView(capture({ content_type: 'text/plain', body: 'a, b: c' }))).toMatchObject({
      kind: 'raw',
      text: 'a, b: c',
    });
    expect(bodyView(capture({ body: '{"broken":' }))).toMatchObject({ kind: 'raw', text: '{"broken":' });
    expect(
      bodyView(capture({ content_type: 'application/x-www-form-urlencoded', body: 'payload=%7B%7D' })),
    ).toMatchObject({ kind: 'raw', text: 'payload=%7B%7D' });
  });

  it('is raw past the layout cap, and cut past the display cap', () => {
    const body = JSON.stringify({ text: 'x'.repeat(100) });
    expect(bodyView(capture({ body }), 50)).toEqual({ kind: 'raw', text: body, hidden: 0, notPretty: true });
    const cut = bodyView(capture({ body }), 1000, 20);
    expect(cut).toEqual({
      kind: 'json',
      text: indentJson(body).slice(0, 20),
      hidden: indentJson(body).length - 20,
      notPretty: false,
    });
    expect(bodyView(capture({ content_type: 'text/plain', body: 'abcdef' }), 1000, 4)).toEqual({
      kind: 'raw',
      text: 'abcd',
      hidden: 2,
      notPretty: false,
    });
  });
});

describe('the captured payloads view', () => {
  const gitlab = capture({
    id: 'm-gitlab',
    received_at: '2025-01-03T00:00:00.000Z',
    size: 1536,
    headers: {
      'user-agent': 'GitLab/17.0.0',
      'content-type': 'application/json',
      'x-gitlab-event': 'Push Hook',
    },
    body: '{"object_kind":"push","ref":"refs/heads/main"}',
  });
  const large = capture({
    id: 'm-large',
    received_at: '2025-01-02T00:00:00.000Z',
    size: 70_000,
    body: null,
    too_large: true,
  });
  const plain = capture({
    id: 'm-plain',
    received_at: '2025-01-01T00:00:00.000Z',
    content_type: null,
    headers: {},
    size: 0,
    body: '',
  });

  it('lists captures newest first, each expandable, with time, type, size, headers and body', () => {
    lang.value = 'en-US';
    const html = renderToString(<CaptureList items={[plain, gitlab, large]} />);
    const text = textOf(html);
    expect(text).toContain('3 kept, newest first');
    const order = ['m-gitlab', 'm-large', 'm-plain'].map((id) => html.indexOf(`>${id}<`));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(tags(html).filter((t) => t === 'details')).toHaveLength(3);
    expect(tags(html).filter((t) => t === 'summary')).toHaveLength(3);
    expect(html).toContain('datetime="2025-01-03T00:00:00.000Z"');
    expect(text).toContain('1.5 KB (1,536 B)');
    expect(text).not.toContain('0 B (0 B)');
    expect(text).toContain('Push Hook');
    expect(text).toContain('user-agent');
    expect(text).toContain('GitLab/17.0.0');
    expect(text).toContain('{\n  "object_kind": "push",\n  "ref": "refs/heads/main"\n}');
    expect(text).toContain('Body too large to keep');
    expect(text).toContain('(empty body)');
    expect(text).toContain('No allow-listed headers.');
    expect(html).toContain('href="/console/deliveries/m-gitlab"');
  });

  it('says when nothing is captured yet, in both languages', () => {
    lang.value = 'en-US';
    expect(textOf(renderToString(<CaptureList items={[]} />))).toContain('No payloads captured yet');
    lang.value = 'zh-CN';
    expect(textOf(renderToString(<CaptureList items={[]} />))).toContain('还没有捕获到请求');
    expect(textOf(renderToString(<CaptureBody capture={large} />))).toContain('请求体太大，未保留');
  });

  it("draws a sender's markup as text, never as elements", () => {
    const hostile = capture({
      content_type: 'text/html',
      body: '<img src=x onerror=alert(1)><script>alert(2)</script>',
      headers: { 'user-agent': '<b>bold</b>' },
    });
    const html = renderToString(<CaptureList items={[hostile]} />);
    expect(tags(html)).not.toContain('img');
    expect(tags(html)).not.toContain('script');
    expect(tags(html)).not.toContain('b');
    expect(textOf(html)).toContain('<img src=x onerror=alert(1)><script>alert(2)</script>');
  });

  it('says what capturing keeps, in both languages', () => {
    lang.value = 'en-US';
    const en = keepsLine();
    for (const part of [
      'last 20 payloads',
      '64 KB',
      '7 days',
      'allow-list',
      'never the URL or its access token',
    ]) {
      expect(en).toContain(part);
    }
    expect(en).toContain('Turning capturing off deletes what is kept');
    lang.value = 'zh-CN';
    const zh = keepsLine();
    for (const part of [
      '最近接受的 20 个请求',
      '64 KB',
      '7 天',
      '允许列表',
      '访问令牌',
      '关闭捕获会删除已保留的请求',
    ]) {
      expect(zh).toContain(part);
    }
  });
});

describe("the pipe's capture panel", () => {
  const pipe: Pipe = {
    id: 'p1',
    bot_id: 'b1',
    title: 'GitLab',
    channel_id: 'c1',
    guild_id: 'g1',
    template_id: 't 1',
    enabled: true,
    rate_limit: null,
    rate_limit_in_force: { capacity: 60, per_second: 2 },
    capture: true,
    created_at: 0,
    updated_at: 0,
  };

  it("shows the setting, Clear and a link to the template's studio page", () => {
    lang.value = 'en-US';
    const html = renderToString(<PipeCaptures pipe={pipe} onChanged={() => {}} />);
    const text = textOf(html);
    expect(text).toContain('Capturing: On');
    expect(text).toContain('Turn capturing off');
    expect(text).toContain('Clear');
    expect(text).toContain('Keeps the last 20 payloads');
    expect(html).toContain('href="/console/templates/t%201"');
    expect(text).toContain("Open this pipe's template in the studio");
  });

  it('has no studio link without a template, and no list or Clear when capturing is off', () => {
    lang.value = 'zh-CN';
    const html = renderToString(
      <PipeCaptures pipe={{ ...pipe, template_id: null, capture: false }} onChanged={() => {}} />,
    );
    const text = textOf(html);
    expect(html).not.toContain('/console/templates/');
    expect(text).toContain('捕获:');
    expect(text).toContain('关闭');
    expect(text).toContain('开启捕获');
    expect(text).toContain('捕获已关闭');
    expect(text).not.toContain('刷新');
    expect(tags(html)).not.toContain('button.danger');
  });
});
