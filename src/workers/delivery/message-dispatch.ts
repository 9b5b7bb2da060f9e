import { REASON } from '../../domain/deliveries/reasons.js';
import type { BotRecord } from '../../store/index.js';
import type { ProcessContext } from '../process-context.js';
import { relayMessage } from '../sinks/relay-sink.js';
import { storeMessage } from '../sinks/store-sink.js';
import type { OutgoingMessage, SinkResult } from '../sinks/types.js';
import { fail } from './delivery-failure.js';
import { timed } from './timed.js';

/**
 * The bot, and its upstream token as read before the send's turn (senderOf): nothing between
 * the budget's answer and the request waits on the database.
 */
export interface Sender {
  readonly bot: BotRecord;
  /** '' for a store-sink bot, or a relay bot without one. */
  readonly upstreamToken: string;
}

/**
 * The sender of one send (each part of a split message reads it again, so that a token changed
 * meanwhile is the one used): a relay bot's token from the cache, which change feeds keep current.
 */
export async function senderOf(ctx: ProcessContext, bot: BotRecord): Promise<Sender> {
  const token = bot.sink === 'relay' ? await ctx.caches.upstreamTokens.get(bot.id) : null;
  return { bot, upstreamToken: token ?? '' };
}

/** Step 5: hand the message to the bot's sink. */
export const dispatch = (ctx: ProcessContext, sender: Sender, m: OutgoingMessage): Promise<SinkResult> =>
  timed(
    (outcome, seconds) => ctx.metrics.dispatchDuration.observe({ sink: sender.bot.sink, outcome }, seconds),
    () => dispatchMessage(ctx, sender, m),
    (result) => (result.kind === 'sent' ? 'ok' : 'error'),
  );

function dispatchMessage(
  ctx: ProcessContext,
  { bot, upstreamToken: token }: Sender,
  m: OutgoingMessage,
): Promise<SinkResult> {
  const { deps } = ctx;
  if (bot.sink !== 'relay') return storeMessage(deps, m);
  if (bot.relay_url === '' || token === '') {
    throw fail(REASON.RELAY_NOT_CONFIGURED, {
      status: 0,
      upstream_code: 0,
      detail: {
        'zh-CN': '机器人未设置 relay_url 或 upstream_token',
        'en-US': 'the bot has no relay_url or upstream_token',
      },
    });
  }
  return relayMessage({ url: bot.relay_url, token }, m, { timeoutMs: deps.config.relayTimeoutMs });
}
