/*
 * The plain shapes the store hands out and takes in. No mongoose types cross this line: every
 * repository returns objects of these interfaces (ids as `id`, never `_id`).
 */

export interface ImageRef {
  readonly id: string;
  readonly url: string;
}

export type BotSink = 'store' | 'relay';

export interface BotRecord {
  readonly id: string;
  readonly name: string;
  /** The bot's own user id: bots are users on the platform. */
  readonly user_id: string;
  readonly enabled: boolean;
  readonly default_score: number;
  /** '' when the bot has no default image. */
  readonly default_img_id: string;
  readonly img_list: readonly ImageRef[];
  /** Pipe-message budget: burst in tokens; null = DEFAULT_BOT_MESSAGE_CAPACITY. */
  readonly rate_capacity: number | null;
  /** Pipe-message budget: refill in tokens per second; null = DEFAULT_BOT_MESSAGE_PER_SECOND. */
  readonly rate_per_second: number | null;
  /** Where delivered messages go: Herald's own timeline, or a relay to an upstream platform. */
  readonly sink: BotSink;
  /** Base URL of the relay target (sink 'relay'); '' when none. */
  readonly relay_url: string;
  /** Whether an upstream token is set (the token itself never leaves the store but for sending). */
  readonly upstream_token_set: boolean;
  readonly created_at: number;
  readonly updated_at: number;
}

export interface UserRecord {
  readonly id: string;
  readonly username: string;
  readonly nickname: string;
  readonly identify_num: string;
  readonly online: boolean;
  readonly bot: boolean;
  /** 0 or 1 normal, 10 banned. */
  readonly status: number;
  readonly avatar: string;
  readonly vip_avatar: string;
  readonly mobile_verified: boolean;
  /** Last change, in ms (0 for a record written before the field existed). */
  readonly updated_at: number;
}

export interface IntimacyRecord {
  readonly bot_id: string;
  readonly user_id: string;
  readonly score: number;
  readonly social_info: string;
  /** null: the bot's current default image. */
  readonly img_id: string | null;
  readonly last_modify: number;
  readonly last_read: number;
}
