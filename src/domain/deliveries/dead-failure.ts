import { CATALOGUE, catalogueMessage, type ParamValue } from '../../errors/index.js';
import type { PipeJob } from '../../queue/pipe-messages.js';
import type { DeliveryRecord } from '../../store/index.js';
import { SEND_REQUIREMENT_NAMES } from '../permissions.js';
import { storedParams } from './failure-text.js';
import { isReasonCode, REASON, reasonKey } from './reasons.js';
import type { RecordedFailure } from './records.js';

/** What is known of a job that died in the queue: BullMQ's failedReason and stall count. */
export interface DeadJob {
  readonly failedReason: string | undefined;
  /** It stalled more than MAX_STALLED_COUNT times (BullMQ failed it for that). */
  readonly stalled: boolean;
  readonly data: Pick<PipeJob, 'bot_id' | 'pipe_id' | 'channel_id' | 'template_id' | 'temp_target_id'>;
}

/** Shown for a message parameter that only the lost record held (e.g. a relay's answer). */
const NOT_RECORDED = { 'zh-CN': '未记录', 'en-US': 'not recorded' } as const;

/**
 * Why a job died, for one that has no failed record (its recording process died first, or the
 * record was lost): the reason the worker failed it with (process-message.ts throws
 * UnrecoverableError(reason), so BullMQ keeps the reason code as failedReason), with the code
 * and message of its catalogue entry; the record's own words when an earlier record (a retry's)
 * names the same reason; a stall as STALLED. A failedReason that is no reason code (BullMQ's
 * own failure) takes the reason the record last gave. Null when nothing names a reason: an
 * unexpected death, which the caller records as INTERNAL.
 */
export function deadJobFailure(job: DeadJob, record: DeliveryRecord | null): RecordedFailure | null {
  const earlier =
    record?.reason && record.code !== null && record.message !== null
      ? {
          reason: record.reason,
          code: record.code,
          message: record.message,
          params: storedParams(record.params),
          detail: record.detail,
        }
      : null;
  const reason = job.stalled ? REASON.STALLED : isReasonCode(job.failedReason) ? job.failedReason : null;
  if (reason === null) return earlier && isReasonCode(earlier.reason) ? { ...earlier } : null;
  if (earlier?.reason === reason) return { ...earlier };
  return catalogueFailure(reason, job.data);
}

/**
 * A failure of `reason` as its catalogue entry words it, its parameters taken from the job (those
 * only a record held read "not recorded"); null for a text that is no reason code.
 */
export function catalogueFailure(reason: string, data: DeadJob['data']): RecordedFailure | null {
  const key = reasonKey(reason);
  if (!key) return null;
  const def = CATALOGUE[key];
  const params: Record<string, ParamValue> = {
    bot_id: data.bot_id,
    pipe_id: data.pipe_id,
    channel_id: data.channel_id,
    ...(data.temp_target_id ? { user_id: data.temp_target_id } : {}),
    ...(data.template_id ? { id: data.template_id } : {}),
    ...(reason === REASON.NO_VIEW_PERMISSION ? { permission: SEND_REQUIREMENT_NAMES.view_channels } : {}),
    ...(reason === REASON.NO_SEND_PERMISSION ? { permission: SEND_REQUIREMENT_NAMES.send_messages } : {}),
  };
  for (const [, name] of def.message['en-US'].matchAll(/\{(\w+)\}/g)) params[name as string] ??= NOT_RECORDED;
  return {
    reason,
    code: def.code,
    message: catalogueMessage(key, params, 'en-US'),
    params,
    detail: null,
  };
}

/**
 * The attempts of a dead job. A stall spends no BullMQ attempt, yet each stalled run was a try
 * (it may have reached the relay). BullMQ counts one attempt when it fails the job for stalling:
 * the attempts are those spent before, plus one per stall. (Not attemptsStarted: it counted 4
 * for 3 runs.)
 */
export const deadJobAttempts = (attemptsMade: number, stalledCounter: number, stalled: boolean): number =>
  stalled ? Math.max(1, attemptsMade - 1 + stalledCounter) : attemptsMade;
