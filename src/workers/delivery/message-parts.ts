import type { Redis } from 'ioredis';
import { asRedisDependencyError } from '../../ratelimit/redis-errors.js';
import { messagePartsKey } from '../../redis/keys.js';
import type { DeliveryPart } from '../../store/index.js';
import { RELAY_ANSWER_KEEP_MS } from '../recovery/sent-log.js';
import type { OutgoingMessage } from '../sinks/types.js';

/**
 * A message split over several (render/fit.ts, docs/pipes.md "Messages that always fit") is
 * sent part by part within its one job. Each part has an id of its own: the first the message's
 * msg_id, the next `${msg_id}.2`, `${msg_id}.3`, ... The store sink's timeline insert is keyed by
 * it and the relay gets it as nonce, and the parts sent are noted in Redis as each is sent, so
 * that a run after a crash, a rate-limit wait or a failed attempt sends only those not sent yet.
 */

/** The id of part `index` (0-based) of message `msgId`. */
export const partMsgId = (msgId: string, index: number): string =>
  index === 0 ? msgId : `${msgId}.${index + 1}`;

/** `m` as part `index` with `content`: its own id; only the first quotes. */
export function partMessage(m: OutgoingMessage, index: number, content: string): OutgoingMessage {
  return { ...m, msg_id: partMsgId(m.msg_id, index), content, quote: index === 0 ? m.quote : null };
}

/** The hash's field holding how many parts the message has. */
const COUNT_FIELD = 'n';

/**
 * What earlier runs sent of a split message. `count`: the parts the message had when they began
 * (null: no part was ever begun); `sent`: index -> the part as sent.
 */
export interface PartsSent {
  readonly count: number | null;
  readonly sent: ReadonlyMap<number, DeliveryPart>;
}

/** Every part sent, in order, when all `count` of them were; else null. */
export function allSent(progress: PartsSent): DeliveryPart[] | null {
  if (progress.count === null) return null;
  const out: DeliveryPart[] = [];
  for (let i = 0; i < progress.count; i++) {
    const part = progress.sent.get(i);
    if (!part) return null;
    out.push(part);
  }
  return out;
}

/**
 * The Redis side of a split message's progress (a hash: `n` -> the count, each part's index ->
 * the part as sent), kept as long as a relay's answer (RELAY_ANSWER_KEEP_MS) and left to expire:
 * a finished job never runs again, and a run after the last part was noted reads it whole.
 */
export class PartProgress {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    msgId: string,
  ) {
    this.key = messagePartsKey(prefix, msgId);
  }

  async read(): Promise<PartsSent> {
    let raw: Record<string, string>;
    try {
      raw = await this.redis.hgetall(this.key);
    } catch (err) {
      throw asRedisDependencyError(err);
    }
    const sent = new Map<number, DeliveryPart>();
    for (const [field, value] of Object.entries(raw)) {
      if (field === COUNT_FIELD) continue;
      const part = JSON.parse(value) as DeliveryPart;
      sent.set(Number(field), { msg_id: part.msg_id, upstream_msg_id: part.upstream_msg_id ?? null });
    }
    const count = raw[COUNT_FIELD] === undefined ? null : Number(raw[COUNT_FIELD]);
    return { count, sent };
  }

  /**
   * Notes that a message of `count` parts is being sent, before its first part goes: a store-sink
   * re-run that finds the first part in the timeline then knows there is more to send.
   */
  begin(count: number): Promise<void> {
    return this.write(COUNT_FIELD, String(count));
  }

  /** Notes part `index` as sent. */
  sent(index: number, part: DeliveryPart): Promise<void> {
    return this.write(String(index), JSON.stringify(part));
  }

  private async write(field: string, value: string): Promise<void> {
    try {
      const replies = await this.redis
        .multi()
        .hset(this.key, field, value)
        .pexpire(this.key, RELAY_ANSWER_KEEP_MS)
        .exec();
      const failed = replies?.find(([err]) => err !== null)?.[0];
      if (failed) throw failed;
    } catch (err) {
      throw asRedisDependencyError(err);
    }
  }
}
