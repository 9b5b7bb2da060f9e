/*
 * The admin API's answers as the overview, bot, intimacy and directory screens read them
 * (src/api/routes/admin-*.ts, docs/directory.md, docs/delivery.md, docs/console.md).
 */

/** A list answer's paging: `page_total` pages of `page_size`, `total` items. */
export interface PageMeta {
  page: number;
  page_total: number;
  page_size: number;
  total: number;
}

export interface Paged<T> {
  items: T[];
  meta: PageMeta;
}

export interface ImageRef {
  id: string;
  url: string;
}

export interface BotView {
  id: string;
  name: string;
  user_id: string;
  enabled: boolean;
  default_score: number;
  default_img_id: string;
  img_list: ImageRef[];
  rate_capacity: number | null;
  rate_per_second: number | null;
  sink: 'store' | 'relay';
  relay_url: string;
  /** Whether an upstream token is set; the token itself is never returned. */
  upstream_token_set: boolean;
  created_at: number;
  updated_at: number;
}

export interface IntimacyView {
  img_url: string;
  social_info: string;
  last_modify: number;
  last_read: number;
  score: number;
  img_list: ImageRef[];
  /** The record's image id, when the server names it (else derived from img_url). */
  img_id?: string | null;
}

export interface OverviewData {
  services: Record<string, { ok: boolean; latency_ms: number | null }>;
  queue: { waiting: number; delayed: number; active: number; failed: number };
  recent: {
    window_s: number;
    sent: number;
    failed: number;
    retried: number;
    per_minute: MinuteCounts[];
  };
  dead_by_reason: { reason: string; count: number }[];
  workers: WorkerSeen[];
}

export interface MinuteCounts {
  /** The minute's start, ms. */
  at: number;
  sent: number;
  failed: number;
  retried: number;
}

export interface WorkerSeen {
  id: string;
  host: string;
  pid: number;
  concurrency: number;
  started_at: number;
  last_seen_at: number;
}

export interface UserView {
  id: string;
  username: string;
  nickname?: string;
  identify_num: string;
  online: boolean;
  bot: boolean;
  status: number;
  avatar: string;
  vip_avatar?: string;
  mobile_verified?: boolean;
  roles?: number[];
  updated_at?: number;
}

export interface RoleView {
  role_id: number;
  name: string;
  color: number;
  position: number;
  hoist: number;
  mentionable: number;
  permissions: number;
}

export interface ChannelView {
  id: string;
  name: string;
  user_id: string;
  guild_id: string;
  topic: string;
  is_category: boolean;
  parent_id: string;
  level: number;
  slow_mode: number;
  type: number;
  permission_overwrites: { role_id: number; allow: number; deny: number }[];
  permission_users: { user: UserView; allow: number; deny: number }[];
  permission_sync: number;
}

export interface GuildView {
  id: string;
  name: string;
  topic: string;
  user_id: string;
  icon: string;
  notify_type: number;
  region: string;
  enable_open: boolean;
  open_id: string;
  default_channel_id: string;
  welcome_channel_id: string;
  roles: RoleView[];
  /** Absent in list items. */
  channels?: ChannelView[];
  created_at: number;
  updated_at: number;
}

export interface MemberView {
  guild_id: string;
  user_id: string;
  nickname: string;
  roles: number[];
  joined_at: number;
  updated_at: number;
  user: UserView | null;
}

export type DeciderKind =
  | 'guild_owner'
  | 'administrator'
  | 'role'
  | 'role_overwrite'
  | 'user_overwrite'
  | 'everyone'
  | 'not_member'
  | 'bot_disabled';

/** GET /admin/api/channel/explain-send. */
export interface SendExplanation {
  allowed: boolean;
  /** The first missing permission, when the server names it. */
  missing?: 'view_channels' | 'send_messages' | null;
  decided_by: { kind: DeciderKind; id?: number | string; name?: string };
  permissions?: number;
  steps: ExplainStep[];
}

export interface ExplainStep {
  kind: DeciderKind;
  id?: number | string;
  name?: string;
  /** How the step changes the mask (union, deny, allow, all, none), when the server says. */
  op?: string;
  effect: 'allow' | 'deny' | 'none';
  permissions: number;
  /** The mask after the step, when the server says. */
  after?: number;
}
