import { MAX_TEST_DATA_LENGTH } from '../../../src/domain/templates/constants.ts';
import { firstJsonError } from '../../../src/render/cards/json-first-error.ts';

import { indentJson, PRETTY_MAX_CHARS } from '../capture-model.ts';
import type { TemplateView } from '../templates-model.ts';

/*
 * The template studio's data (the template itself is templates-model.ts's TemplateView): the
 * channels a test may go to, what a save sends, and the test data as JSON.
 */

export interface ChannelOption {
  id: string;
  name: string;
  type: number;
  guild_id: string;
  guild_name: string;
}

/** What the editor holds; compared with the saved template to tell what a save must send. */
export interface Draft {
  title: string;
  msgtype: number;
  content: string;
  test_data: string;
  test_channel: string;
}

export const draftOf = (t: TemplateView): Draft => ({
  title: t.title,
  msgtype: t.msgtype,
  content: t.content,
  test_data: t.test_data,
  test_channel: t.test_channel,
});

/** The fields of `draft` that differ from `saved` (what an update sends: an unchanged field is left alone). */
export function changedFields(saved: Draft, draft: Draft): Partial<Draft> {
  const out: Partial<Draft> = {};
  for (const k of Object.keys(draft) as (keyof Draft)[]) {
    if (draft[k] !== saved[k]) (out as Record<string, unknown>)[k] = draft[k];
  }
  return out;
}

export const NEW_TEMPLATE: Draft = {
  title: '',
  msgtype: 1,
  content: '**{{ data.title|default("Hello") }}**\n{{ data.text }}',
  test_data: '{\n  "title": "Hello from Herald",\n  "text": "It works."\n}',
  test_channel: '',
};

export type TestData =
  | { ok: true; value: unknown }
  | { ok: false; message: string; line: number; column: number };

/**
 * The test data parsed as JSON ('' is `{}`, as the server reads it), or where and why the JSON
 * breaks, found by the renderer's own scan (JSON.parse's messages differ between browsers).
 */
export function parseTestData(text: string): TestData {
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    const found = firstJsonError(text);
    const offset = found?.offset ?? 0;
    const before = text.slice(0, offset);
    const lineStart = before.lastIndexOf('\n') + 1;
    return {
      ok: false,
      message: found?.message ?? (e instanceof Error ? e.message : String(e)),
      line: before.split('\n').length,
      column: offset - lineStart + 1,
    };
  }
}

/**
 * A captured body as test data: JSON laid out over lines to be edited (whitespace only: keys keep
 * their order and numbers their digits), anything else (not JSON, or too long to lay out) as sent.
 * Laid out only while that stays within test_data's limit: the indents of a big payload that
 * fits as sent would otherwise make the save fail.
 */
export function testDataFromCapture(body: string): string {
  if (body.length > PRETTY_MAX_CHARS) return body;
  try {
    JSON.parse(body);
  } catch {
    return body;
  }
  const laidOut = indentJson(body);
  return laidOut.length <= MAX_TEST_DATA_LENGTH ? laidOut : body;
}
