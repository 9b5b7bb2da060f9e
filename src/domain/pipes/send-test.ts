import { HeraldError, type Lang, NotFoundError } from '../../errors/index.js';
import { getBot } from '../bots.js';
import { getTemplateForSend, parseJsonText } from '../templates/index.js';
import type { PipeMessageRequest } from './ingest.js';
import type { CachedPipe } from './pipe-cache.js';
import { getPipe } from './pipes.js';
import { type RoutedMessage, testRoute } from './routing/routing.js';
import type { PipeDeps } from './runtime.js';

/*
 * The back office's "send a test message" (POST /admin/api/pipe/send-test): the request a sender
 * would make, built from the pipe's template's test_data (or a short text for a pipe without
 * one). The caller then takes it through the door's own steps (takePipeBudget,
 * acceptPipeMessage), so a test message is budgeted, queued and delivered like any other.
 */

/** What the door would hold for a test message: the pipe as its cache has it, and the request. */
export interface TestMessage {
  readonly pipe: CachedPipe;
  readonly request: PipeMessageRequest;
}

/** KMarkdown's markup characters, escaped with a backslash so that a title reads as written. */
const escapeKmarkdown = (text: string): string => text.replace(/[\\*~_`[\]()>:|-]/g, '\\$&');

/** The text a pipe without template sends as its test: names the pipe, in the operator's language. */
export function testText(pipe: { readonly id: string; readonly title: string }, lang: Lang): string {
  const title = escapeKmarkdown(pipe.title);
  return lang === 'zh-CN'
    ? `这是一条测试消息，来自管道 **${title}**（${pipe.id}），由 Herald 控制台发送。`
    : `This is a test message from pipe **${title}** (${pipe.id}), sent from the Herald console.`;
}

/**
 * The test message of pipe `id`. Refuses, with a catalogue error naming what to fix, a disabled
 * pipe (40930), a disabled bot (40931) and a template without test_data (40932); a deleted or
 * banned template answers as a send would fail (40020, 40021). The pipe is read from the store
 * for those answers, then from the door's cache, whose admission (enabled pipe and bot) it must
 * pass as a token would.
 */
export async function testMessage(deps: PipeDeps, id: string, lang: Lang): Promise<TestMessage> {
  const record = await getPipe(deps, id);
  const where = { pipe_id: record.id };
  if (!record.enabled) throw new HeraldError('PIPE_TEST_PIPE_DISABLED', where);
  const bot = await getBot(deps, record.bot_id);
  if (!bot.enabled) throw new HeraldError('PIPE_TEST_BOT_DISABLED', { ...where, bot_id: bot.id });

  let text: string;
  let body: unknown;
  // A routed pipe's test renders its default template, or its first route's (routing.ts).
  const route: RoutedMessage | null = testRoute(record);
  const templateId = route === null ? record.template_id : route.template_id;
  if (templateId !== null) {
    const template = await getTemplateForSend(deps, bot, templateId);
    if (template.test_data === '') {
      throw new HeraldError('PIPE_TEST_NO_TEST_DATA', { ...where, template_id: template.id });
    }
    text = template.test_data;
    body = parseJsonText(text, 'test_data');
  } else {
    body = { content: testText(record, lang) };
    text = JSON.stringify(body);
  }

  const pipe = await deps.pipeRuntime.pipes.get(record.id);
  if (!pipe) throw new NotFoundError('pipe');
  if (!pipe.enabled) throw new HeraldError('PIPE_TEST_PIPE_DISABLED', where);
  if (!pipe.bot_enabled) throw new HeraldError('PIPE_TEST_BOT_DISABLED', { ...where, bot_id: pipe.bot_id });
  return {
    pipe,
    request: {
      type: null,
      target_id: null,
      quote: null,
      nonce: null,
      temp_target_id: null,
      body,
      rawBody: text,
      bodyBytes: Buffer.from(text, 'utf8'),
      idempotencyKey: null,
      ...(route === null ? {} : { route }),
    },
  };
}
