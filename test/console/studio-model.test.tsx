import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../console/src/api.ts';
import { indentJson } from '../../console/src/capture-model.ts';
import { lang } from '../../console/src/i18n.ts';
import {
  cardLimitWarnings,
  limitWarningText,
  messageLimitWarnings,
} from '../../console/src/studio/card-limits.ts';
import { markerOf, outputErrorOf, warningMarkers } from '../../console/src/studio/render-errors.ts';
import {
  changedFields,
  parseTestData,
  testDataFromCapture,
} from '../../console/src/studio/template-model.ts';
import { MAX_TEST_DATA_LENGTH } from '../../src/domain/templates/constants.ts';

beforeEach(() => {
  lang.value = 'en-US';
});
afterEach(() => {
  lang.value = 'en-US';
});

const section = (content: string, type = 'kmarkdown') => ({ type: 'section', text: { type, content } });

describe('cardLimitWarnings', () => {
  it('says nothing for a card well inside the limits', () => {
    expect(
      cardLimitWarnings([{ type: 'card', modules: [{ type: 'header', text: 'Hi' }, section('**x**')] }]),
    ).toEqual([]);
  });

  it('warns at 5 cards, and at 40 to 50 modules in all cards', () => {
    const card = (n: number) => ({
      type: 'card',
      modules: Array.from({ length: n }, () => ({ type: 'divider' })),
    });
    expect(cardLimitWarnings([card(9), card(9), card(9), card(9), card(4)])).toEqual([
      { kind: 'cards', path: '', value: 5, max: 5, at: true },
      { kind: 'modules', path: '', value: 40, max: 50, at: false },
    ]);
    expect(cardLimitWarnings([card(39)])).toEqual([]);
    expect(cardLimitWarnings([card(50)])).toEqual([
      { kind: 'modules', path: '', value: 50, max: 50, at: true },
    ]);
    expect(cardLimitWarnings([card(1), card(1), card(1), card(1)])).toEqual([]);
  });

  it('warns on text near its length limit, counting characters (code points), with the path', () => {
    const header = { type: 'header', text: { type: 'plain-text', content: '😀'.repeat(80) } };
    const kmd = section('x'.repeat(4999));
    const plain = section('y'.repeat(1599), 'plain-text');
    expect(cardLimitWarnings([{ type: 'card', modules: [header, kmd, plain] }])).toEqual([
      { kind: 'header', path: 'card[0].modules[0].text.content', value: 80, max: 100, at: false },
      { kind: 'kmarkdown', path: 'card[0].modules[1].text.content', value: 4999, max: 5000, at: false },
    ]);
    expect(
      cardLimitWarnings([{ type: 'card', modules: [{ type: 'header', text: 'h'.repeat(100) }] }]),
    ).toEqual([{ kind: 'header', path: 'card[0].modules[0].text', value: 100, max: 100, at: true }]);
  });

  it('counts buttons, images, context elements and paragraph fields, and their texts', () => {
    const button = (text: unknown) => ({ type: 'button', text });
    const modules = [
      { type: 'action-group', elements: [button('a'), button('b'), button('c'), button('d'.repeat(2000))] },
      {
        type: 'image-group',
        elements: Array.from({ length: 9 }, () => ({ type: 'image', src: 'https://x/y.png' })),
      },
      { type: 'context', elements: Array.from({ length: 10 }, () => 'c') },
      {
        type: 'section',
        text: { type: 'paragraph', cols: 2, fields: Array.from({ length: 41 }, () => 'f') },
      },
      { type: 'section', text: 'ok', accessory: button({ type: 'kmarkdown', content: 'k'.repeat(4500) }) },
    ];
    expect(
      cardLimitWarnings([{ type: 'card', modules }]).map((w) => `${w.kind} ${w.path} ${w.value}`),
    ).toEqual([
      'buttons card[0].modules[0].elements 4',
      'plainText card[0].modules[0].elements[3].text 2000',
      'images card[0].modules[1].elements 9',
      'contextElements card[0].modules[2].elements 10',
      'paragraphFields card[0].modules[3].text.fields 41',
      'kmarkdown card[0].modules[4].accessory.text.content 4500',
    ]);
  });

  it('reads anything defensively (the preview draws what the template wrote)', () => {
    expect(cardLimitWarnings(null)).toEqual([]);
    expect(cardLimitWarnings([null, { modules: 'x' }, { modules: [null, { type: 'section' }] }])).toEqual([]);
  });
});

describe('messageLimitWarnings', () => {
  it('checks a card message’s cards and a KMarkdown message’s length', () => {
    const cards = JSON.stringify([{ type: 'card', modules: [{ type: 'header', text: 'h'.repeat(100) }] }]);
    expect(messageLimitWarnings({ type: 10, content: cards })).toHaveLength(1);
    expect(messageLimitWarnings({ type: 10, content: 'not json' })).toEqual([]);
    expect(messageLimitWarnings({ type: 9, content: 'k'.repeat(6400) })).toEqual([
      { kind: 'messageLength', path: '', value: 6400, max: 8000, at: false },
    ]);
    expect(messageLimitWarnings({ type: 9, content: 'short' })).toEqual([]);
  });

  it('says it in both languages', () => {
    const w = { kind: 'modules' as const, path: '', value: 45, max: 50, at: false };
    expect(limitWarningText(w)).toBe(
      'Modules in all cards near the limit: 45 of 50. Longer data may go over it.',
    );
    lang.value = 'zh-CN';
    expect(limitWarningText({ ...w, kind: 'header', path: 'card[0].modules[0].text', at: true })).toBe(
      '标题文字长度已达上限：45 / 50（card[0].modules[0].text）。更长的数据会被拒绝。',
    );
  });
});

describe('warningMarkers', () => {
  it("marks each of the render's warnings where it came from, as a warning", () => {
    const message = {
      type: 9,
      content: 'Array',
      warnings: [
        { message: 'Array to string conversion', line: 2, column: 4 },
        { message: 'no place', line: 0, column: 0 },
      ],
      warning_count: 2,
    };
    expect(warningMarkers(message)).toEqual([
      { line: 2, column: 4, message: 'Array to string conversion', severity: 'warning' },
    ]);
    expect(warningMarkers({ type: 9, content: 'x' })).toEqual([]);
    expect(warningMarkers(null)).toEqual([]);
  });
});

describe('markerOf and outputErrorOf', () => {
  const apiError = (code: number, data: unknown) => new ApiError(400, code, `message ${code}`, data);

  it('turns template errors (40010, 40011, 40016) into markers at their line and column', () => {
    for (const code of [40010, 40011, 40016]) {
      expect(markerOf(apiError(code, { line: 3, column: 7, excerpt: 'x' }))).toEqual({
        line: 3,
        column: 7,
        message: `message ${code}`,
        severity: 'error',
      });
    }
  });

  it('gives card errors (about the rendered output) no template marker, but an output error', () => {
    const syntax = apiError(40013, { format: 'json', line: 12, column: 5, excerpt: '  "a": ,' });
    expect(markerOf(syntax)).toBeNull();
    expect(outputErrorOf(syntax)).toEqual({
      code: 40013,
      message: 'message 40013',
      line: 12,
      column: 5,
      excerpt: '  "a": ,',
    });
    const invalid = apiError(40014, { path: 'card[0]', rule: 'r' });
    expect(markerOf(invalid)).toBeNull();
    expect(outputErrorOf(invalid)).toEqual({ code: 40014, message: 'message 40014' });
  });

  it('gives nothing for other errors or a template error without a usable place', () => {
    expect(markerOf(apiError(40012, { limit: 'steps' }))).toBeNull();
    expect(markerOf(apiError(40010, null))).toBeNull();
    expect(markerOf(apiError(40010, { line: 0, column: 1 }))).toBeNull();
    expect(markerOf(new Error('network'))).toBeNull();
    expect(outputErrorOf(apiError(40011, { line: 1, column: 1 }))).toBeNull();
  });

  it('reads save warnings ({code, message, ...data}) the same way, as warnings', () => {
    expect(markerOf({ code: 40011, message: 'm', line: 2, column: 4, excerpt: 'e' }, 'warning')).toEqual({
      line: 2,
      column: 4,
      message: 'm',
      severity: 'warning',
    });
    expect(outputErrorOf({ code: 40014, message: 'too many', path: 'card' })).toEqual({
      code: 40014,
      message: 'too many',
    });
  });
});

describe('the studio draft', () => {
  it('sends only the fields that changed', () => {
    const saved = { title: 't', msgtype: 2, content: 'c', test_data: '{}', test_channel: '' };
    expect(changedFields(saved, { ...saved })).toEqual({});
    expect(changedFields(saved, { ...saved, content: 'd', test_channel: '5' })).toEqual({
      content: 'd',
      test_channel: '5',
    });
  });

  it('parses test data, empty as {}, and places a JSON error at its line and column', () => {
    expect(parseTestData('')).toEqual({ ok: true, value: {} });
    expect(parseTestData(' {"a": [1]} ')).toEqual({ ok: true, value: { a: [1] } });
    expect(parseTestData('{\n  "a": x\n}')).toMatchObject({ ok: false, line: 2, column: 8 });
    expect(parseTestData('{"a": 1,}')).toMatchObject({ ok: false, line: 1, column: 9 });
    const end = parseTestData('{\n"a":');
    expect(end).toMatchObject({ ok: false, line: 2, column: 5, message: 'Unexpected end of JSON input' });
  });
});

describe('a captured body as test data', () => {
  it('lays JSON out over lines without changing it, and leaves anything else as sent', () => {
    const body = '{"b":1,"10":2,"n":12345678901234567890,"s":"a\\u00e9"}';
    const out = testDataFromCapture(body);
    expect(out.split('\n').length).toBeGreaterThan(1);
    // Only whitespace differs: order, digits and escapes as sent.
    expect(out.replace(/\s+/g, '')).toBe(body);
    expect(testDataFromCapture('a=1&b=2')).toBe('a=1&b=2');
    expect(testDataFromCapture('{"a":')).toBe('{"a":');
  });

  it('keeps a body as sent when laid out it would be longer than test_data may be', () => {
    // A 38 KB push (a GitLab push with many commits): sent, it fits test_data's 65,536
    // characters; laid out over lines with indents, it would not, and the save would be refused.
    const commits = Array.from({ length: 800 }, (_, i) => ({
      id: `c${i}`,
      message: 'fix',
      added: ['a', 'b'],
    }));
    const body = JSON.stringify({ object_kind: 'push', commits });
    expect(body.length).toBeLessThan(MAX_TEST_DATA_LENGTH);
    expect(indentJson(body).length).toBeGreaterThan(MAX_TEST_DATA_LENGTH);
    const out = testDataFromCapture(body);
    expect(out.length).toBeLessThanOrEqual(MAX_TEST_DATA_LENGTH);
    expect(out).toBe(body);
  });
});
