import { REASON } from '../../domain/deliveries/reasons.js';
import type { ProcessContext } from '../process-context.js';
import { relayMessage } from '../sinks/relay-sink.js';
import { storeMessage } from '../sinks/store-sink.js';
import type { OutgoingMessage, SinkResult } from '../sinks/types.js';
import { fail } from './delivery-failure.js';
import type { Checked } from './message-checks.js';
import { timed } from './timed.js';

/** The bot and its upstream token, as the checks read them. */
type Sender = Pick<Checked, 'bot' | 'upstreamToken'>;

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
      detail: 'the bot has no relay_url or upstream_token',
    });
  }
  return relayMessage({ url: bot.relay_url, token }, m, { timeoutMs: deps.config.relayTimeoutMs });
}
