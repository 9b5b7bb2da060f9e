import type { RenderedMessage } from '../../render/index.js';
import { packText } from '../../text/packed-text.js';
import { encodeUtf8 } from '../../text/utf8.js';
import { neutraliseGroupMentions } from '../delivery/mentions.js';

/** What the message a render makes will be sent as, when the render is a message's own. */
export interface SendOptions {
  /** The bot may mention everyone (PERMISSION.MENTION_EVERYONE): group mentions stay. */
  readonly mayMentionEveryone: boolean;
  /** The bot's sink takes JSON (the relay): write each content's JSON string as UTF-8 too. */
  readonly wireJson: boolean;
}

/**
 * A render's result as the worker sends it: content and parts with their group mentions
 * neutralised (when `send` says so), the content packed for the delivery record
 * (text/packed-text.ts; null when short), and for a relay the wire form of each content.
 */
export type PoolRendered = RenderedMessage & {
  readonly packed: string | null;
  /** The group mentions neutralised in content or parts, first-seen order ([] without `send`). */
  readonly blocked: readonly string[];
  /**
   * With `send.wireJson`: `JSON.stringify(content)` as UTF-8, or of each part for a message in
   * parts (wire[i] is parts[i]'s); each in an ArrayBuffer of its own, for the thread to transfer.
   */
  readonly wire?: readonly Uint8Array[];
};

/**
 * The last steps of a message's render, on the render thread where there is one: the relay's
 * JSON escape of a 30 KB card and its UTF-8 encoding were the largest steps left on the main
 * thread after the render moved off it (docs/delivery.md).
 */
export function readyToSend(out: RenderedMessage, send: SendOptions | undefined): PoolRendered {
  if (send === undefined) return { ...out, packed: packText(out.content), blocked: [] };
  const blocked: string[] = [];
  const neutral = (text: string): string => {
    const m = neutraliseGroupMentions(text, send.mayMentionEveryone);
    for (const who of m.blocked) if (!blocked.includes(who)) blocked.push(who);
    return m.content;
  };
  const content = neutral(out.content);
  const parts = out.parts?.map(neutral);
  const wire = send.wireJson
    ? (parts ?? [content]).map((text) => ownBuffer(encodeUtf8(JSON.stringify(text))))
    : undefined;
  return {
    ...out,
    content,
    ...(parts === undefined ? {} : { parts }),
    packed: packText(content),
    blocked,
    ...(wire === undefined ? {} : { wire }),
  };
}

/**
 * `bytes` alone in its ArrayBuffer (a small Buffer shares Node's pool, which must not move), as
 * a plain Uint8Array: what a thread's transfer delivers, so both ways give the same value.
 */
function ownBuffer(bytes: Uint8Array): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength)
    return new Uint8Array(bytes.buffer, 0, bytes.byteLength);
  return new Uint8Array(bytes);
}
