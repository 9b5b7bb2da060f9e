import { describe, expect, it } from 'vitest';
import { allSent, partMessage, partMsgId } from '../../../src/workers/delivery/message-parts.js';
import type { OutgoingMessage } from '../../../src/workers/sinks/types.js';

const message: OutgoingMessage = {
  msg_id: 'm',
  bot_id: 'b',
  author_id: 'u',
  channel_id: 'c',
  guild_id: 'g',
  type: 9,
  content: 'whole',
  quote: 'q-1',
  temp_target_id: 't-1',
  nonce: 'n',
  create_at: 1,
  not_permissions_mention: [],
};

describe('the parts of a message split over several', () => {
  it('are named msg_id, then msg_id.2, msg_id.3, ...', () => {
    expect([0, 1, 2].map((i) => partMsgId('m', i))).toEqual(['m', 'm.2', 'm.3']);
  });

  it('each carry their own content; only the first quotes, every one goes to the same target', () => {
    const [first, second] = [partMessage(message, 0, 'a'), partMessage(message, 1, 'b')];
    expect(first).toEqual({ ...message, content: 'a' });
    expect(second).toEqual({ ...message, msg_id: 'm.2', content: 'b', quote: null });
  });

  it('are all sent only when every one of the count was noted', () => {
    const part = (i: number) => ({ msg_id: partMsgId('m', i), upstream_msg_id: null });
    expect(allSent({ count: null, sent: new Map() })).toBeNull();
    expect(
      allSent({
        count: 3,
        sent: new Map([
          [0, part(0)],
          [2, part(2)],
        ]),
      }),
    ).toBeNull();
    expect(
      allSent({
        count: 2,
        sent: new Map([
          [1, part(1)],
          [0, part(0)],
        ]),
      }),
    ).toEqual([part(0), part(1)]);
  });
});
