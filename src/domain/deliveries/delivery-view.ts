import { DEFAULT_LANG, type Lang, NotFoundError } from '../../errors/index.js';
import type { DeliveryDetail, DeliveryRecord, Page, PageRequest } from '../../store/index.js';
import type { Deps } from '../deps.js';
import type { PipeDeps } from '../pipes/runtime.js';
import { pipeMessageStatus } from '../pipes/status.js';
import { readableRecord } from './failure-text.js';
import { DEAD, recordsInStage, type StageFilter } from './lifecycle.js';

/** A record as the back office reads it: its failure's message in the reader's language. */
export type DeliveryView = Omit<DeliveryRecord, 'params'>;
export type DeliveryDetailView = Omit<DeliveryDetail, 'params'>;

/** The back office's delivery list: a stage (lifecycle.ts) and the fields that are set. */
export interface DeliveryListFilter {
  readonly stage: StageFilter;
  readonly bot_id?: string;
  readonly pipe_id?: string;
  /** The reason code the message was recorded with (a death's, or the last retry's). */
  readonly reason?: string;
  /** created_at from, in ms. */
  readonly since?: number;
  /** created_at until, in ms. */
  readonly until?: number;
}

/**
 * Delivery records in `filter.stage` matching the rest of it, ordered as `page` says; a
 * failure's message in `lang`.
 */
export async function listDeliveries(
  deps: Deps,
  { stage, ...rest }: DeliveryListFilter,
  page: PageRequest,
  lang: Lang = DEFAULT_LANG,
): Promise<Page<DeliveryView>> {
  const found = await deps.store.deliveries.list({ ...recordsInStage(stage), ...rest }, page);
  return { ...found, items: found.items.map((r) => readableRecord(r, lang)) };
}

/**
 * Of the dead messages `filter` matches (its stage aside), how many can still be replayed: their
 * replay input is kept (DEAD_RETENTION_MS). The rest are listed but a replay passes them over.
 * Null for any other stage.
 */
export function countReplayable(deps: Deps, { stage, ...rest }: DeliveryListFilter): Promise<number | null> {
  if (stage !== DEAD) return Promise.resolve(null);
  return deps.store.deliveries.countReplayableDead({ ...rest, died_before: deps.now() });
}

/**
 * One message's delivery: its record with the history and the message as sent. A message
 * accepted but not recorded yet (its job still in the queue, or its sent record still on the way
 * from the sent log) answers what pipemsg-status reads from its job (status.ts), with an empty
 * history; created_at is then when it was accepted. An unknown message is NotFoundError. A
 * failure's message is worded in `lang`.
 */
export async function viewDelivery(
  deps: PipeDeps,
  msgId: string,
  botId: string | null = null,
  lang: Lang = DEFAULT_LANG,
): Promise<DeliveryDetailView> {
  const detail = await viewAnyDelivery(deps, msgId, lang);
  // A bot developer's studio session sees its own bot's messages only; another's is "not found".
  if (botId !== null && detail.bot_id !== botId) throw new NotFoundError('message');
  return detail;
}

async function viewAnyDelivery(deps: PipeDeps, msgId: string, lang: Lang): Promise<DeliveryDetailView> {
  const [record, job] = await Promise.all([
    deps.store.deliveries.detail(msgId),
    deps.pipeRuntime.messages.snapshot(msgId),
  ]);
  if (record) return readableRecord(record, lang);
  const data = job?.data;
  if (!data) throw new NotFoundError('message');
  const status = await pipeMessageStatus(deps, msgId, { pipe_id: data.pipe_id }, lang);
  return {
    msg_id: msgId,
    bot_id: data.bot_id,
    pipe_id: data.pipe_id,
    channel_id: data.channel_id,
    template_id: data.template_id,
    event: data.event ?? null,
    status: status.status,
    reason: status.error?.reason ?? null,
    code: status.error?.code ?? null,
    message: status.error?.message ?? null,
    detail: null,
    attempts: status.attempts,
    replays: 0,
    sent_at: status.sent_at,
    upstream_msg_id: status.upstream_msg_id,
    folded_into: status.folded_into,
    parts: status.parts.length > 1 ? status.parts : null,
    retry_at: status.retry_at,
    not_permissions_mention: status.not_permissions_mention,
    created_at: data.accepted_at,
    updated_at: data.accepted_at,
    history: [],
    rendered: null,
    rendered_dropped_at: null,
  };
}
