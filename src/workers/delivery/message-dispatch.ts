import { REASON } from '../../domain/deliveries/reasons.js';
import type { BotRecord } from '../../store/index.js';
import type { ProcessContext } from '../process-context.js';
import { relayMessage } from '../sinks/relay-sink.js';
import { storeMessage } from '../sinks/store-sink.js';
import type { OutgoingMessage, SinkResult } from '../sinks/types.js';
import { fail } from './delivery-failure.js';
import { timed } from './timed.js';

/** Step 5: hand the message to the bot's sink. */
export const dispatch = (ctx: ProcessContext, bot: BotRecord, m: OutgoingMessage): Promise<SinkResult> =>
  timed(
    (outcome, seconds) => ctx.metrics.dispatchDuration.observe({ sink: bot.sink, outcome }, seconds),
    () => dispatchMessage(ctx, bot, m),
    (result) => (result.kind === 'sent' ? 'ok' : 'error'),
  );

async function dispatchMessage(ctx: ProcessContext, bot: BotRecord, m: OutgoingMessage): Promise<SinkResult> {
  const { deps } = ctx;
  if (bot.sink !== 'relay') return storeMessage(deps, m);
  const token = (await ctx.caches.upstreamTokens.get(bot.id)) ?? '';
  if (bot.relay_url === '' || token === '') {
    throw fail(REASON.RELAY_NOT_CONFIGURED, {
      status: 0,
      upstream_code: 0,
      detail: 'the bot has no relay_url or upstream_token',
    });
  }
  return relayMessage({ url: bot.relay_url, token }, m, { timeoutMs: deps.config.relayTimeoutMs });
}
