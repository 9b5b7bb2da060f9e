import { isAllowedImageUrl } from './cards/image-url.js';
import { DEFAULT_FAILURE_IMAGE_URL } from './limits.js';
import { toStr } from './twig/runtime/convert.js';
import { type Method, MethodObject } from './twig/runtime/method-object.js';
import { fromJson } from './twig/runtime/php-array.js';
import type { Value } from './twig/runtime/value.js';

export type { PlatformNeeds } from './twig/platform-needs.js';

/** Objects of platform-facts.md, "Objects returned by the template functions" (plain JSON). */
export interface Role {
  role_id: number;
  name: string;
  color: number;
  position: number;
  hoist: number;
  mentionable: number;
  permissions: number;
}

export interface User {
  id: string;
  username: string;
  nickname?: string;
  identify_num: string;
  online: boolean;
  bot: boolean;
  /** 0/1 normal, 10 banned */
  status: number;
  avatar: string;
  vip_avatar?: string;
  mobile_verified?: boolean;
  roles?: number[];
}

export interface Channel {
  id: string;
  name: string;
  user_id: string;
  guild_id: string;
  topic: string;
  is_category: boolean;
  parent_id: string;
  level: number;
  slow_mode: number;
  /** 1 text, 2 voice */
  type: number;
  permission_overwrites: { role_id: number; allow: number; deny: number }[];
  permission_users: { user: User; allow: number; deny: number }[];
  permission_sync: number;
}

export interface Guild {
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
  roles: Role[];
  channels: Channel[];
}

export interface Quote {
  id: string;
  type: number;
  content: string;
  /** ms */
  create_at: number;
  author: User;
}

/** What a render may know about the platform; plain data so renders stay synchronous. */
export interface PlatformContext {
  guild?: Guild | null;
  channel?: Channel | null;
  sender?: User | null;
  targetUser?: User | null;
  quote?: Quote | null;
  /** Servers the sending bot has joined, by id: the only ones getGuild(id) answers for. */
  joinedGuilds?: Readonly<Record<string, Guild>>;
  /** Failure image for PLATFORM.image(); defaults to DEFAULT_FAILURE_IMAGE_URL. */
  defaultImageUrl?: string;
}

/**
 * The PLATFORM (alias KOOK) global. Only the six methods below exist; everything it returns is
 * converted to template arrays, so nothing of the host is reachable through it.
 */
export class PlatformObject extends MethodObject {
  readonly phpClass = 'Platform';
  readonly ctx: PlatformContext;

  constructor(ctx: PlatformContext) {
    super();
    this.ctx = ctx;
  }

  /** One table for every render: each method reads its render's context from `this`. */
  protected get methods(): ReadonlyMap<string, Method> {
    return PLATFORM_METHODS;
  }
}

/** PLATFORM's methods, called with the render's PlatformObject as `this` (getAttribute does). */
const PLATFORM_METHODS: ReadonlyMap<string, Method> = new Map<string, Method>([
  [
    'getguild',
    function (this: PlatformObject, _st, args) {
      const ctx = this.ctx;
      const id = args[0];
      if (id === undefined || id === null) return fromJson(ctx.guild ?? null);
      const joined = ctx.joinedGuilds ?? {};
      const key = toStr(id);
      return Object.hasOwn(joined, key) ? fromJson(joined[key]) : null;
    },
  ],
  [
    'getchannel',
    function (this: PlatformObject) {
      return fromJson(this.ctx.channel ?? null);
    },
  ],
  [
    'getsender',
    function (this: PlatformObject) {
      return fromJson(this.ctx.sender ?? null);
    },
  ],
  [
    'gettargetuser',
    function (this: PlatformObject) {
      return fromJson(this.ctx.targetUser ?? null);
    },
  ],
  [
    'getquote',
    function (this: PlatformObject) {
      return fromJson(this.ctx.quote ?? null);
    },
  ],
  [
    'image',
    function (this: PlatformObject, _st, args) {
      const url: Value = args[0] ?? null;
      // a card takes jpg, jpeg, gif and png (or no extension): a .webp or .svg avatar would fail
      // the whole card, so it gets the failure image as an unusable address does
      if (
        typeof url === 'string' &&
        (url.startsWith('http://') || url.startsWith('https://')) &&
        isAllowedImageUrl(url)
      ) {
        return url;
      }
      const fallback = args[1];
      if (fallback !== undefined && fallback !== null && fallback !== '' && fallback !== false)
        return fallback;
      return this.ctx.defaultImageUrl ?? DEFAULT_FAILURE_IMAGE_URL;
    },
  ],
]);
