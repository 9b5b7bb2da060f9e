/** One rendered message, ready for a sink. */
export interface OutgoingMessage {
  readonly msg_id: string;
  readonly bot_id: string;
  /** The bot's user id: the message's author. */
  readonly author_id: string;
  readonly channel_id: string;
  readonly guild_id: string;
  /** 9 KMarkdown, 10 card (content is the card JSON text). */
  readonly type: 9 | 10;
  readonly content: string;
  readonly quote: string | null;
  readonly temp_target_id: string | null;
  /** The sender's nonce ('' if none), shown in the timeline; the relay gets msg_id instead. */
  readonly nonce: string;
  /** When the sink took it, in ms (the timeline's create_at). */
  readonly create_at: number;
  /**
   * Group mentions neutralised in `content` (the bot may not mention everyone). Not sent on;
   * the timeline keeps them so that a run after a crash can still report them.
   */
  readonly not_permissions_mention: readonly string[];
}

/**
 * What a sink did with a message. A relay's 429 is an answer, not a failure: the message waits
 * `waitMs` (from the relay's headers) without spending an attempt.
 */
export type SinkResult =
  | {
      readonly kind: 'sent';
      /** The id the relay target gave the message; null for the store sink. */
      readonly upstream_msg_id: string | null;
    }
  | { readonly kind: 'rate_limited'; readonly waitMs: number };
