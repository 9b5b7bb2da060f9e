import { HeraldError, NotFoundError, ValidationError } from '../errors/index.js';
import { withRecordLock } from '../locks/record-lock.js';
import { lockKey } from '../redis/keys.js';
import {
  type BotChanges,
  type BotRecord,
  type BotSink,
  type ImageRef,
  newNumericId,
  type Page,
  type PageRequest,
} from '../store/index.js';
import type { Deps } from './deps.js';
import { publishDirectoryChange } from './directory/change-feed.js';
import { BOT_TOKEN_PREFIX, issueToken, tokenMatches, tokenOwner } from './tokens.js';

/** What operators may set on a bot: the store's changeable fields, unchanged. */
export type BotInput = BotChanges;

/** Whether a relay address is one a request can be made to (the route's pattern lets `http://a b/` by). */
function isHttpUrl(s: string): boolean {
  try {
    const url = new URL(s);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A relay sink needs somewhere to relay to and a token to present there. */
function checkSink(sink: BotSink, relayUrl: string, hasToken: boolean): void {
  if (relayUrl !== '' && !isHttpUrl(relayUrl)) {
    throw new ValidationError('relay_url', {
      'zh-CN': '必须是 http(s) 地址',
      'en-US': 'must be an http(s) URL',
    });
  }
  if (sink !== 'relay') return;
  if (relayUrl === '') {
    throw new ValidationError('relay_url', {
      'zh-CN': 'sink 为 relay 时必填',
      'en-US': 'is required when sink is relay',
    });
  }
  if (!hasToken) {
    throw new ValidationError('upstream_token', {
      'zh-CN': 'sink 为 relay 时必填',
      'en-US': 'is required when sink is relay',
    });
  }
}

export interface CreatedBot {
  readonly bot: BotRecord;
  /** Shown once; only its hash is stored. */
  readonly token: string;
}

/** default_img_id must name an image of the list it will be used with; ids are unique. */
function checkImages(imgList: readonly ImageRef[], defaultImgId: string): void {
  const ids = new Set<string>();
  imgList.forEach((img, i) => {
    if (ids.has(img.id)) {
      throw new ValidationError(`img_list[${i}].id`, {
        'zh-CN': `图片 id "${img.id}" 重复`,
        'en-US': `image id "${img.id}" appears more than once`,
      });
    }
    ids.add(img.id);
  });
  if (defaultImgId !== '' && !ids.has(defaultImgId)) {
    throw new ValidationError('default_img_id', {
      'zh-CN': '必须是 img_list 中某张图片的 id',
      'en-US': 'must be the id of an image in img_list',
    });
  }
}

export async function createBot(deps: Deps, input: BotInput & { name: string }): Promise<CreatedBot> {
  const imgList = input.img_list ?? [];
  const defaultImgId = input.default_img_id ?? '';
  checkImages(imgList, defaultImgId);
  checkSink(input.sink ?? 'store', input.relay_url ?? '', (input.upstream_token ?? '') !== '');
  const now = deps.now();
  const id = newNumericId();
  const userId = newNumericId();
  // Bots are users on the platform; the user record is what templates see as the sender.
  await deps.store.users.create(
    {
      id: userId,
      username: input.name,
      nickname: input.name,
      identify_num: String((Number.parseInt(userId.slice(-4), 10) % 9000) + 1000),
      online: true,
      bot: true,
      status: 0,
      avatar: '',
      vip_avatar: '',
      mobile_verified: false,
    },
    now,
  );
  const { token, hash } = issueToken(BOT_TOKEN_PREFIX, id);
  const bot = await deps.store.bots.create({
    id,
    name: input.name,
    user_id: userId,
    token_hash: hash,
    default_score: input.default_score ?? 0,
    default_img_id: defaultImgId,
    img_list: imgList,
    now,
  });
  const delivery = {
    rate_capacity: input.rate_capacity,
    rate_per_second: input.rate_per_second,
    sink: input.sink,
    relay_url: input.relay_url,
    upstream_token: input.upstream_token,
  };
  if (Object.values(delivery).some((v) => v !== undefined)) {
    return { bot: (await deps.store.bots.update(id, delivery, now)) ?? bot, token };
  }
  return { bot, token };
}

export async function getBot(deps: Deps, id: string): Promise<BotRecord> {
  const bot = await deps.store.bots.get(id);
  if (!bot) throw new NotFoundError('bot');
  return bot;
}

/**
 * Operators' bot update, under the bot's record lock (FerretDB v1 updates are not atomic; see
 * withRecordLock). Announced on the change feed so workers and pipe doors drop their copies.
 */
export async function updateBot(deps: Deps, id: string, changes: BotInput): Promise<BotRecord> {
  const updated = await withRecordLock(deps.redis, lockKey(deps.config.redisPrefix, 'bot', id), () =>
    applyBotUpdate(deps, id, changes),
  );
  await publishDirectoryChange(deps, { kind: 'bot', id });
  if (changes.name !== undefined) await publishDirectoryChange(deps, { kind: 'user', id: updated.user_id });
  return updated;
}

async function applyBotUpdate(deps: Deps, id: string, changes: BotInput): Promise<BotRecord> {
  const current = await getBot(deps, id);
  if (changes.img_list !== undefined || changes.default_img_id !== undefined) {
    checkImages(changes.img_list ?? current.img_list, changes.default_img_id ?? current.default_img_id);
  }
  checkSink(
    changes.sink ?? current.sink,
    changes.relay_url ?? current.relay_url,
    changes.upstream_token !== undefined ? changes.upstream_token !== '' : current.upstream_token_set,
  );
  const now = deps.now();
  const updated = await deps.store.bots.update(id, changes, now);
  if (!updated) throw new NotFoundError('bot');
  if (changes.name !== undefined && changes.name !== current.name) {
    await deps.store.users.rename(current.user_id, changes.name, now);
  }
  return updated;
}

/** Issues a new token; the old one stops working at once. */
export async function rotateBotToken(deps: Deps, id: string): Promise<string> {
  const { token, hash } = issueToken(BOT_TOKEN_PREFIX, id);
  if (!(await deps.store.bots.setTokenHash(id, hash, deps.now()))) throw new NotFoundError('bot');
  return token;
}

export function listBots(deps: Deps, page: PageRequest): Promise<Page<BotRecord>> {
  return deps.store.bots.list(page);
}

/** The bot a token belongs to. Unknown or stale tokens are 401; a disabled bot is 403. */
export async function authenticateBot(deps: Deps, token: string): Promise<BotRecord> {
  const id = tokenOwner(BOT_TOKEN_PREFIX, token);
  const found = id ? await deps.store.bots.getWithTokenHash(id) : null;
  if (!found || !tokenMatches(token, found.token_hash)) throw new HeraldError('INVALID_TOKEN');
  if (!found.bot.enabled) throw new HeraldError('FORBIDDEN');
  return found.bot;
}
