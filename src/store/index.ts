import mongoose from 'mongoose';
import { createBotStore } from './bots.js';
import { createChannelStore } from './channels.js';
import { guarded } from './db-errors.js';
import { createDeliveryStore } from './deliveries.js';
import { defineDeliveryModels } from './delivery-model.js';
import { defineDirectoryModels } from './directory-models.js';
import { createGuildStore } from './guilds.js';
import { watchHeartbeats } from './heartbeat-watchdog.js';
import { createIntimacyStore } from './intimacy.js';
import { createMemberStore } from './members.js';
import { createMessageStore } from './messages.js';
import { defineModels } from './models.js';
import { definePipeModels } from './pipe-model.js';
import { createPipeStore } from './pipes.js';
import { defineTemplateModels } from './template-model.js';
import { createTemplateStore } from './templates.js';
import { createUserStore } from './users.js';

export { BOT_SORT_FIELDS, type BotChanges, type BotStore, type NewBot } from './bots.js';
export {
  CHANNEL_SORT_FIELDS,
  type ChannelChanges,
  type ChannelStore,
  MAX_GUILD_CHANNELS,
  type NewChannel,
} from './channels.js';
export {
  DELIVERY_HISTORY_MAX,
  DELIVERY_SORT_FIELDS,
  type DeliveryChanges,
  type DeliveryDetail,
  type DeliveryEvent,
  type DeliveryFilter,
  type DeliveryPart,
  type DeliveryRecord,
  type DeliveryRecordIds,
  type DeliveryStage,
  type DeliveryStatus,
  type DeliveryStore,
  type RenderedMessage,
  type RenderWarning,
  type RenderWarnings,
  type StoredRendered,
} from './deliveries.js';
export {
  type ChannelRecord,
  EVERYONE_ROLE_ID,
  type GuildRecord,
  type MemberRecord,
  type RoleOverwrite,
  type RoleRecord,
  type UserOverwrite,
} from './directory-records.js';
export { DuplicateRecordError } from './duplicate-record-error.js';
export { GUILD_SORT_FIELDS, type GuildChanges, type GuildStore, type NewGuild } from './guilds.js';
export { newNumericId } from './ids.js';
export type { IntimacyChanges, IntimacyStore } from './intimacy.js';
export { MAX_USER_GUILDS, MEMBER_SORT_FIELDS, type MemberChanges, type MemberStore } from './members.js';
export type { MessageStore, TimelineMessage } from './messages.js';
export type { Page, PageRequest } from './paging.js';
export type { PipeSignatureView, StoredSignature, StoredSigningSecret } from './pipe-signature.js';
export {
  type NewPipe,
  PIPE_SORT_FIELDS,
  type PipeChanges,
  type PipeEventSource,
  type PipeGrouping,
  type PipeOverflow,
  type PipeRateLimit,
  type PipeRecord,
  type PipeRoutes,
  type PipeStore,
} from './pipes.js';
export type { BotRecord, BotSink, ImageRef, IntimacyRecord, UserRecord } from './records.js';
export {
  type NewTemplate,
  TEMPLATE_ID_LENGTH,
  TEMPLATE_SORT_FIELDS,
  type TemplateChanges,
  type TemplateListFilter,
  type TemplateRecord,
  type TemplateStore,
} from './templates.js';
export type { UserChanges, UserStore } from './users.js';

// Filters built from request input can never carry query operators ({"$gt": ""}), and unknown
// filter fields are dropped rather than matching everything.
mongoose.set('sanitizeFilter', true);
mongoose.set('strictQuery', true);

export interface StoreOptions {
  /** Database name; defaults to the one in the URL. Tests pass a fresh name per file. */
  readonly dbName?: string;
  /** How long an operation waits for a reachable server before failing, in ms. */
  readonly timeoutMs: number;
  /**
   * Also bounds every repository call, as a whole, to `timeoutMs`, and connecting and the
   * driver's heartbeats too, so that a server that stopped answering fails calls as one that
   * refuses connections does: for processes whose callers wait on the answer (HTTP requests).
   */
  readonly boundCalls?: boolean;
}

export interface Store {
  readonly bots: ReturnType<typeof createBotStore>;
  readonly users: ReturnType<typeof createUserStore>;
  readonly intimacy: ReturnType<typeof createIntimacyStore>;
  readonly pipes: ReturnType<typeof createPipeStore>;
  readonly deliveries: ReturnType<typeof createDeliveryStore>;
  readonly messages: ReturnType<typeof createMessageStore>;
  readonly guilds: ReturnType<typeof createGuildStore>;
  readonly channels: ReturnType<typeof createChannelStore>;
  readonly members: ReturnType<typeof createMemberStore>;
  readonly templates: ReturnType<typeof createTemplateStore>;
  /** Resolves when the database answers a ping; throws DependencyError otherwise. */
  ping(): Promise<void>;
  /** Drops the whole database: for tests and the demo's reset only. */
  dropDatabase(): Promise<void>;
  /** Safe to call more than once. */
  close(): Promise<void>;
}

/** Connects, makes sure indexes exist, and returns the repositories. */
export async function openStore(url: string, options: StoreOptions): Promise<Store> {
  const conn = mongoose.createConnection(url, {
    ...(options.dbName ? { dbName: options.dbName } : {}),
    serverSelectionTimeoutMS: options.timeoutMs,
    // Fail fast instead of queueing operations while disconnected: a request should get 503,
    // not hang until a buffer times out.
    bufferCommands: false,
    autoIndex: false,
    // A heartbeat that gets no answer within this marks the server unknown and ends the
    // operations stalled on its connections (they are closed, not reused): from then on calls
    // fail at server selection, as with a refused connection. The default is 30 s.
    ...(options.boundCalls ? { connectTimeoutMS: options.timeoutMs } : {}),
  });
  await conn.asPromise();
  // Each feature's schemas live in its own file; add them to this spread.
  const models = {
    ...defineModels(conn),
    ...defineDirectoryModels(conn),
    ...defineTemplateModels(conn),
    ...defineDeliveryModels(conn),
    ...definePipeModels(conn),
  };
  await Promise.all(Object.values(models).map((m) => m.createIndexes()));
  // Unsticks the driver's server monitor after a dropped connection (see heartbeat-watchdog.ts).
  const stopWatchdog = watchHeartbeats(conn.getClient());
  let closed: Promise<void> | undefined;
  const deadlineMs = options.boundCalls ? options.timeoutMs : undefined;
  const guard = <T extends object>(repo: T): T => guarded(repo, deadlineMs);
  const admin = guard({
    async ping(): Promise<void> {
      if (!conn.db) throw new mongoose.mongo.MongoNotConnectedError('not connected');
      await conn.db.command({ ping: 1 });
    },
  });
  // Tests and the demo's reset only: no deadline, as a large database takes a while to drop.
  const drop = guarded({
    async dropDatabase(): Promise<void> {
      await conn.dropDatabase();
    },
  });
  return {
    bots: guard(createBotStore(models)),
    users: guard(createUserStore(models)),
    intimacy: guard(createIntimacyStore(models)),
    pipes: guard(createPipeStore(models)),
    deliveries: guard(createDeliveryStore(models)),
    messages: guard(createMessageStore(models)),
    guilds: guard(createGuildStore(models)),
    channels: guard(createChannelStore(models)),
    members: guard(createMemberStore(models)),
    templates: guard(createTemplateStore(models)),
    ping: admin.ping,
    dropDatabase: drop.dropDatabase,
    close() {
      stopWatchdog();
      closed ??= conn.close();
      return closed;
    },
  };
}
