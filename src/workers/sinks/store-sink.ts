import type { Deps } from '../../domain/deps.js';
import type { OutgoingMessage, SinkResult } from './types.js';

/**
 * Adds the message to its channel's timeline in the store. The insert is keyed by msg_id, so a
 * job that runs again after a crash finds it there and adds nothing. Temporary messages (with
 * temp_target_id) are shown to one user only and are not part of the timeline.
 */
export async function storeMessage(deps: Deps, m: OutgoingMessage): Promise<SinkResult> {
  if (m.temp_target_id) return { kind: 'sent', upstream_msg_id: null };
  await deps.store.messages.insert({
    id: m.msg_id,
    channel_id: m.channel_id,
    guild_id: m.guild_id,
    bot_id: m.bot_id,
    author_id: m.author_id,
    type: m.type,
    content: m.content,
    quote_id: m.quote,
    nonce: m.nonce,
    create_at: m.create_at,
    not_permissions_mention: m.not_permissions_mention,
  });
  return { kind: 'sent', upstream_msg_id: null };
}
