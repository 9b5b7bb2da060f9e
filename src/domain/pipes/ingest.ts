import { randomUUID } from 'node:crypto';
import { DependencyError, HeraldError, ValidationError } from '../../errors/index.js';
import { metricsFor } from '../../metrics/index.js';
import { bodyInput } from '../../queue/job-input.js';
import type { PipeJob } from '../../queue/pipe-messages.js';
import type { BucketResult } from '../../ratelimit/token-bucket.js';
import { pipeBucketKey, pipeJobKey } from '../../redis/keys.js';
import { botSlotTag, pipeQueueNameOfBot } from '../../redis/partitions.js';
import { isTextChannel } from '../directory/index.js';
import { messageTypeOf } from '../templates/constants.js';
import { TemplateTypeMismatchError } from '../templates/errors.js';
import { type CaptureSource, keepCapture } from './captures.js';
import {
  acceptClaim,
  claimIdempotencyKey,
  idempotencyRedisKey,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  releaseClaim,
  sha256Hex,
} from './idempotency.js';
import { type CachedPipe, resolvePipeToken } from './pipe-cache.js';
import type { RoutedMessage, SkipReason } from './routing/routing.js';
import type { PipeDeps, TemplateFormat } from './runtime.js';

/*
 * The hot path of send-pipemsg: token -> pipe from the in-process cache, the pipe's budget
 * (one Redis call, or none while this process holds a lease on a busy pipe), then the message
 * stored as a BullMQ job (one Redis call), plus one claim and one confirmation when the sender
 * gives an Idempotency-Key. No database read: the pipe cache holds what the job needs, and a
 * target_id other than the pipe's channel is checked against the channel cache, and a `type`
 * sent to a template pipe against the template format cache (checkTemplateType).
 */

/** The rate-limit bucket name the X-Rate-Limit-Bucket header shows. */
export const PIPE_BUCKET = 'message/send-pipemsg';

/** The pipe a token opens; 401 for any token that opens none. Without a promise when cached. */
export function authenticatePipe(deps: PipeDeps, token: string): CachedPipe | Promise<CachedPipe> {
  return resolvePipeToken(deps.pipeRuntime.pipes, token);
}

/**
 * Takes one message from the pipe's budget (shared by every web process through Redis; a busy
 * pipe is served from this process's lease, without a promise then: ratelimit/bucket-leases.ts).
 */
export function takePipeBudget(
  deps: PipeDeps,
  pipe: CachedPipe,
  bucket = 'send',
): BucketResult | Promise<BucketResult> {
  return deps.pipeRuntime.budgets.take(
    pipeBucketKey(deps.config.redisPrefix, pipe.id, bucket),
    pipe.rate_limit,
  );
}

export interface PipeMessageRequest {
  readonly type: 9 | 10 | null;
  readonly target_id: string | null;
  readonly quote: string | null;
  readonly nonce: string | null;
  readonly temp_target_id: string | null;
  /** The parsed JSON body (an object or an array). */
  readonly body: unknown;
  /** The body as received, for the idempotency hash. */
  readonly rawBody: string;
  /** The body's bytes: a template's input (queue/job-input.ts). */
  readonly bodyBytes: Buffer;
  readonly idempotencyKey: string | null;
  /**
   * The request's headers, for the pipe's captured payloads (captures.ts); absent: not captured
   * (the console's test message is not a sender's payload).
   */
  readonly capture?: CaptureSource;
  /**
   * For a pipe that routes by event: the door's choice (routing/routing.ts routeRequest), whose
   * template renders the message instead of the pipe's template_id.
   */
  readonly route?: RoutedMessage;
}

/** The answer data of send-pipemsg, as the platform's message/create answers. */
export interface PipeMessageAccepted {
  readonly msg_id: string;
  readonly msg_timestamp: number;
  readonly nonce: string;
  readonly not_permissions_mention: string[];
}

/** What a template pipe's input is when the request has no body: the body reader's `{}`. */
const EMPTY_BODY = Buffer.from('{}');

/** Without a template the body is `{"content": "<non-empty text>"}`; answers the text. */
function contentOf(body: unknown): string {
  const content =
    body !== null && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>).content
      : undefined;
  if (content === undefined) {
    throw new ValidationError('content', { 'zh-CN': '为必填项', 'en-US': 'is required' });
  }
  if (typeof content !== 'string') {
    throw new ValidationError('content', { 'zh-CN': '必须是字符串', 'en-US': 'must be a string' });
  }
  if (content.trim() === '') {
    throw new ValidationError('content', { 'zh-CN': '不能为空', 'en-US': 'must not be empty' });
  }
  return content;
}

/**
 * The channel a request's target_id names, checked (400 naming target_id): the pipe's own when it
 * names none. A routed pipe checks it before it skips an event, so that GitHub's first `ping`
 * already shows a wrong target in the URL.
 */
export function messageChannel(
  deps: PipeDeps,
  pipe: CachedPipe,
  targetId: string | null,
): Promise<string> | string {
  return targetId === null || targetId === pipe.channel_id
    ? pipe.channel_id
    : targetChannel(deps, pipe, targetId);
}

/** target_id, another channel than the pipe's, is a text channel of the pipe's server; answers its id. */
async function targetChannel(deps: PipeDeps, pipe: CachedPipe, targetId: string): Promise<string> {
  const channel = await deps.pipeRuntime.channels.get(targetId);
  if (!channel || !isTextChannel(channel) || channel.guild_id !== pipe.guild_id) {
    throw new ValidationError('target_id', {
      'zh-CN': '必须是管道所在服务器中的文字频道',
      'en-US': "must be a text channel in the pipe's server",
    });
  }
  return channel.id;
}

/**
 * A `type` sent to a pipe with a template must be the template's own format (9 for KMarkdown, 10
 * for a card in any card format): the template decides what the message is, and a `type` that
 * says otherwise is refused (400, 40023) rather than silently overridden. Equal or absent is
 * fine. A template that is gone or banned is left to the worker, which records why it cannot
 * send, as for a message sent without `type`. Read from the template format cache, so that the
 * door keeps working through a database outage; a template it cannot know then is left to the
 * worker too, which fails a message whose type disagrees (TYPE_MISMATCH).
 */
async function checkTemplateType(
  deps: PipeDeps,
  pipe: CachedPipe,
  templateId: string,
  type: 9 | 10,
): Promise<void> {
  let template: TemplateFormat | null;
  try {
    template = await deps.pipeRuntime.templates.get(templateId);
  } catch (err) {
    if (err instanceof DependencyError && err.dependency === 'database') return;
    throw err;
  }
  if (!template || template.bot_id !== pipe.bot_id) return;
  const expected = messageTypeOf(template.msgtype);
  if (expected !== type) throw new TemplateTypeMismatchError(type, templateId, expected);
}

/** Idempotency-Key: 1 to 255 visible ASCII characters. */
export function checkIdempotencyKey(key: string): string {
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new ValidationError('Idempotency-Key', {
      'zh-CN': `必须是 1 到 ${MAX_IDEMPOTENCY_KEY_LENGTH} 个可见 ASCII 字符`,
      'en-US': `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters`,
    });
  }
  return key;
}

/**
 * Validates the message and stores it as a job on the pipe queue under its msg_id. Answers
 * only once the job is in Redis; if Redis fails, nothing is accepted (503) and an idempotency
 * claim made for it is released. A write that got no answer in DB_TIMEOUT_MS may still be
 * applied when Redis answers again; it is withdrawn then (withdraw).
 */
export async function acceptPipeMessage(
  deps: PipeDeps,
  pipe: CachedPipe,
  req: PipeMessageRequest,
): Promise<PipeMessageAccepted> {
  const templateId = req.route === undefined ? pipe.template_id : req.route.template_id;
  if (templateId !== null && req.type !== null) await checkTemplateType(deps, pipe, templateId, req.type);
  // A template's input travels as the body's bytes (see PipeJob.input); it is valid JSON, parsed
  // once here. A POST without a body (or an empty one) reads as `{}`, and so does its input: its
  // empty bytes would fail to parse in the worker, after a 200.
  const input =
    templateId === null
      ? { input: contentOf(req.body) }
      : bodyInput(req.bodyBytes.length === 0 ? EMPTY_BODY : req.bodyBytes, deps.config.inputDeflateMinBytes);
  const channelId = await messageChannel(deps, pipe, req.target_id);
  const job: PipeJob = {
    msg_id: randomUUID(),
    pipe_id: pipe.id,
    bot_id: pipe.bot_id,
    channel_id: channelId,
    guild_id: pipe.guild_id,
    template_id: templateId,
    type: req.type,
    quote: req.quote,
    nonce: req.nonce ?? '',
    temp_target_id: req.temp_target_id,
    ...input,
    accepted_at: deps.now(),
  };
  // Only a routed pipe's jobs carry these: every other job keeps its shape.
  if (req.route !== undefined) {
    job.event = req.route.event;
    job.headers = req.route.headers;
  }
  if (req.idempotencyKey === null) {
    await enqueue(deps, job);
    capture(deps, pipe, req, job);
    return answer(job.msg_id, job.accepted_at, job.nonce);
  }

  // On a cluster the claim and the job it names share the bot's partition's slot.
  const queueName = pipeQueueNameOfBot(deps.config, job.bot_id);
  const redisKey = idempotencyRedisKey(
    deps.config.redisPrefix,
    pipe.id,
    req.idempotencyKey,
    botSlotTag(deps.config, job.bot_id),
  );
  const jobKey = pipeJobKey(deps.config.redisPrefix, job.msg_id, queueName);
  let claim: Awaited<ReturnType<typeof claimIdempotencyKey>>;
  try {
    claim = await claimIdempotencyKey(deps.pipeRuntime.redis, {
      redisKey,
      bodyHash: sha256Hex(req.rawBody),
      msgId: job.msg_id,
      acceptedAt: job.accepted_at,
      nonce: job.nonce,
      jobKeyPrefix: pipeJobKey(deps.config.redisPrefix, '', queueName),
    });
  } catch (err) {
    // A claim that got no answer may still be made; this release runs after it if so.
    void releaseClaim(deps.pipeRuntime.redis, redisKey, job.msg_id, jobKey);
    throw err;
  }
  if (claim.outcome === 'conflict') throw new HeraldError('IDEMPOTENCY_KEY_REUSED');
  if (claim.outcome === 'in_progress') throw new HeraldError('IDEMPOTENCY_KEY_IN_PROGRESS');
  if (claim.outcome === 'duplicate') return answer(claim.msgId, claim.acceptedAt, claim.nonce);
  // After the withdrawal, on the same connection: releases the claim, or confirms it when a
  // worker took the job before it could be withdrawn (a retry then answers its msg_id).
  await enqueue(deps, job, () => releaseClaim(deps.pipeRuntime.producer, redisKey, job.msg_id, jobKey));
  capture(deps, pipe, req, job);
  // The message is stored: it is accepted even if the confirmation fails (a retry finds the job
  // and confirms the claim then).
  await acceptClaim(deps.pipeRuntime.redis, redisKey, job.msg_id).catch((err: unknown) =>
    deps.log.warn('idempotency claim not confirmed', {
      pipe_id: pipe.id,
      msg_id: job.msg_id,
      error: err instanceof Error ? err.message : String(err),
    }),
  );
  return answer(job.msg_id, job.accepted_at, job.nonce);
}

/**
 * Captures a stored message's payload, if its pipe keeps them: after the store, so only what
 * was accepted is captured (a duplicate Idempotency-Key stores, and captures, nothing); not
 * awaited, so the answer never waits for it nor fails with it.
 */
function capture(deps: PipeDeps, pipe: CachedPipe, req: PipeMessageRequest, job: PipeJob): void {
  if (req.capture === undefined || !pipe.capture) return;
  keepCapture(deps, deps.pipeRuntime.redis, pipe.id, {
    msgId: job.msg_id,
    acceptedAt: job.accepted_at,
    source: req.capture,
    body: req.bodyBytes,
  });
}

const answer = (msgId: string, at: number, nonce: string): PipeMessageAccepted => ({
  msg_id: msgId,
  msg_timestamp: at,
  nonce,
  not_permissions_mention: [],
});

/**
 * Stores the job; if that fails, withdraws it and then runs `afterWithdraw` (not awaited: the
 * 503 does not wait on a Redis that may not answer).
 */
async function enqueue(deps: PipeDeps, job: PipeJob, afterWithdraw?: () => Promise<void>): Promise<void> {
  try {
    await deps.pipeRuntime.messages.add(job);
  } catch (err) {
    void deps.pipeRuntime.messages.withdraw(job.msg_id, job.bot_id).then(afterWithdraw);
    throw err;
  }
  metricsFor(deps).accepted.inc();
}

/** Counts an event a routed pipe answered without a message. */
export function countSkipped(deps: PipeDeps, reason: SkipReason): void {
  metricsFor(deps).skipped.inc({ reason });
}
