import { randomUUID } from 'node:crypto';
import { HeraldError, ValidationError } from '../../errors/index.js';
import { metricsFor } from '../../metrics/index.js';
import { type PipeJob, STUDIO_TEST_PIPE_ID } from '../../queue/pipe-messages.js';
import { DEFAULT_OVERFLOW } from '../../render/index.js';
import type { BotRecord } from '../../store/index.js';
import { getChannel, isTextChannel } from '../directory/index.js';
import type { PipeDeps } from '../pipes/runtime.js';
import { previewTemplate } from './preview.js';
import { type StudioRenderRequest, type StudioScope, studioBot, studioTemplate } from './studio.js';

/*
 * The studio's calls that read or write the pipe queue (web processes only: the worker never
 * imports this file): what a template's deletion would break, and "send to test channel".
 */

/** Where a template is used: the pipes bound to it, and its messages not yet sent. */
export interface TemplateUsage {
  readonly pipes: ReadonlyArray<{ readonly id: string; readonly title: string }>;
  /** Messages accepted with the template whose jobs are still waiting, put off or running. */
  readonly pending: number;
  /** The queue held more unfinished messages than were looked at: `pending` is a floor. */
  readonly pending_capped: boolean;
}

/**
 * What deleting (or banning) the template would stop: its pipes would fail every message from
 * then on, and the messages already accepted with it that are not yet sent would fail too
 * (TEMPLATE_DELETED / TEMPLATE_BANNED). Counted from the queue's jobs, which name the template
 * they were accepted with; the delivery records do not.
 */
export async function templateUsage(deps: PipeDeps, scope: StudioScope, id: string): Promise<TemplateUsage> {
  const { template } = await studioTemplate(deps, scope, id);
  const [pipes, pending] = await Promise.all([
    deps.store.pipes.listByTemplate(template.bot_id, template.id),
    deps.pipeRuntime.messages.countUnfinishedWithTemplate(template.id),
  ]);
  return {
    pipes: pipes.map((p) => ({ id: p.id, title: p.title })),
    pending: pending.count,
    pending_capped: pending.capped,
  };
}

/** A studio test: what to render (as a render) and the channel (default: the template's test_channel). */
export type StudioTestRequest = StudioRenderRequest;

/**
 * "Send to test channel": renders the template (stored, or the editor's inline text) as a preview
 * does, into the channel, and queues the rendered message as the bot's, with no pipe and no
 * template (pipe_id STUDIO_TEST_PIPE_ID): the worker takes it through the same checks a pipe
 * message meets (the bot enabled, the channel a text channel of that server, the bot's view and
 * send permissions), the bot's message budget at a normal message's cost, and the bot's sink;
 * it is recorded and listed in Deliveries like any message. Rendered here rather than in the
 * worker because the editor's text may not be saved; a stored template that is banned or deleted
 * is refused here, as a send would fail. `admit(bot)` runs once the bot is known and before
 * the render (the door's budget). Answers the message id.
 */
export async function sendStudioTest(
  deps: PipeDeps,
  scope: StudioScope,
  req: StudioTestRequest,
  admit: (bot: BotRecord) => Promise<void>,
): Promise<{ msg_id: string }> {
  let bot: BotRecord;
  let testChannel = '';
  if (req.id !== undefined) {
    const found = await studioTemplate(deps, scope, req.id);
    bot = found.bot;
    testChannel = found.template.test_channel;
  } else {
    bot = await studioBot(deps, scope, req.bot_id);
  }
  const channelId = req.channel_id ?? testChannel;
  if (channelId === '') {
    throw new ValidationError('channel_id', {
      'zh-CN': '为必填项（模板没有 test_channel）',
      'en-US': 'is required (the template has no test_channel)',
    });
  }
  if (!bot.enabled) throw new HeraldError('TEMPLATE_TEST_BOT_DISABLED', { bot_id: bot.id });
  await admit(bot);
  // The render checks that the channel is in a server the bot has joined (404 naming channel_id,
  // or test_channel when it came from the template).
  // A message over the platform's limits is split, as a pipe's is by default: queued whole, and
  // fitted again by the worker (docs/pipes.md, "Messages that always fit").
  const message = await previewTemplate(deps, bot, req, DEFAULT_OVERFLOW);
  const channel = await getChannel(deps, channelId);
  if (!channel || !isTextChannel(channel)) {
    throw new ValidationError('channel_id', {
      'zh-CN': '必须是文字频道（不是语音频道或分组）',
      'en-US': 'must be a text channel (not voice, not a category)',
    });
  }
  const job: PipeJob = {
    msg_id: randomUUID(),
    pipe_id: STUDIO_TEST_PIPE_ID,
    bot_id: bot.id,
    channel_id: channel.id,
    guild_id: channel.guild_id,
    template_id: null,
    type: message.type,
    quote: null,
    nonce: '',
    temp_target_id: null,
    input: message.content,
    accepted_at: deps.now(),
  };
  await deps.pipeRuntime.messages.add(job);
  metricsFor(deps).accepted.inc();
  return { msg_id: job.msg_id };
}
