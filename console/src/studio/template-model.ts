import { firstJsonError } from '../../../src/render/cards/json-first-error.ts';

/*
 * The template studio's data (docs: the studio contract; src/api/routes/templates.ts): a
 * template as the admin API answers it, what a save sends, and the test data as JSON.
 */

/** status: 0 not reviewed, 1 in review, 2 approved, 3 rejected. msgtype: 1 KMarkdown, 2-4 card JSON/YAML/XML. */
export interface TemplateView {
  id: string;
  bot_id: string;
  title: string;
  type: number;
  msgtype: number;
  status: number;
  test_data: string;
  test_channel: string;
  content: string;
  version: number;
  banned: boolean;
  consumption: number;
  created_at: number | string;
  updated_at: number | string;
}

/** A save's problems found by the test render (the save went through): a code, a message, the error's data. */
export interface SaveWarning {
  code: number;
  message: string;
  [key: string]: unknown;
}

export interface Saved {
  model: TemplateView;
  warnings: SaveWarning[];
}

export interface ChannelOption {
  id: string;
  name: string;
  type: number;
  guild_id: string;
  guild_name: string;
}

export const MSGTYPES = [1, 2, 3, 4] as const;
export const IN_REVIEW = 1;

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
