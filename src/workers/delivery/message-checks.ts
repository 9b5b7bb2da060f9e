import { REASON } from '../../domain/deliveries/reasons.js';
import { isTextChannel } from '../../domain/directory/index.js';
import {
  effectivePermissions,
  missingSendPermission,
  SEND_REQUIREMENT_NAMES,
} from '../../domain/permissions.js';
import { messageTypeOf, NORMAL_MESSAGE_CONSUMPTION } from '../../domain/templates/constants.js';
import { TemplateNotFoundError } from '../../domain/templates/errors.js';
import { templateForSend } from '../../domain/templates/index.js';
import { type PipeJob, STUDIO_TEST_PIPE_ID } from '../../queue/pipe-messages.js';
import { DEFAULT_OVERFLOW, type Overflow } from '../../render/index.js';
import type {
  BotRecord,
  ChannelRecord,
  GuildRecord,
  MemberRecord,
  TemplateRecord,
} from '../../store/index.js';
import type { ProcessContext } from '../process-context.js';
import { fail } from './delivery-failure.js';

/** Token cost of a message sent without a template: a normal message's consumption. */
export const MESSAGE_WITHOUT_TEMPLATE_COST = NORMAL_MESSAGE_CONSUMPTION;

/** What the checks produce: the records a message is rendered with, and what it costs. */
export interface Checked {
  readonly bot: BotRecord;
  readonly template: TemplateRecord | null;
  readonly guild: GuildRecord;
  readonly channel: ChannelRecord;
  readonly botMember: MemberRecord | null;
  readonly targetMember: MemberRecord | null;
  readonly permissions: number;
  /** Per message sent: a message split over several pays it for each. */
  readonly cost: number;
  /** What a message over the platform's limits becomes (the pipe's; a studio test's splits). */
  readonly overflow: Overflow;
}

/**
 * Steps 1-2: load and check. Throws DeliveryError for good. A studio test message (pipe_id
 * STUDIO_TEST_PIPE_ID) has no pipe to check: its server is the one its channel was in when it was
 * accepted, and every other check is a pipe message's.
 */
export async function check(ctx: ProcessContext, data: PipeJob): Promise<Checked> {
  const { caches } = ctx;
  const studio = data.pipe_id === STUDIO_TEST_PIPE_ID;
  const [pipe, bot] = await Promise.all([
    studio ? null : caches.pipes.get(data.pipe_id),
    caches.bots.get(data.bot_id),
  ]);
  if (!studio) {
    if (!pipe || pipe.bot_id !== data.bot_id) throw fail(REASON.PIPE_DELETED, { pipe_id: data.pipe_id });
    if (!pipe.enabled) throw fail(REASON.PIPE_DISABLED, { pipe_id: data.pipe_id });
  }
  if (!bot?.enabled) throw fail(REASON.BOT_UNAVAILABLE, { bot_id: data.bot_id });
  const guildId = pipe ? pipe.guild_id : data.guild_id;

  const templateId = data.template_id;
  const templatePromise = templateId
    ? caches.templates
        .get(`${bot.id}:${templateId}`)
        .then((t) => templateForSend(t, templateId))
        .catch((err: unknown) => {
          if (err instanceof TemplateNotFoundError) {
            throw fail(REASON.TEMPLATE_DELETED, { id: data.template_id as string });
          }
          throw err;
        })
    : Promise.resolve(null);
  const [template, channel] = await Promise.all([templatePromise, caches.channels.get(data.channel_id)]);
  // The door refuses a `type` other than the template's format; the template's msgtype may have
  // changed since the message was accepted.
  if (template && data.type !== null) {
    const expected = messageTypeOf(template.msgtype);
    if (data.type !== expected)
      throw fail(REASON.TYPE_MISMATCH, { type: data.type, id: template.id, expected });
  }

  const where = { channel_id: data.channel_id };
  if (!channel) throw fail(REASON.CHANNEL_NOT_FOUND, where);
  if (channel.guild_id !== guildId || !isTextChannel(channel)) {
    throw fail(REASON.CHANNEL_NOT_TEXT, where);
  }
  const [guild, botMember, targetMember] = await Promise.all([
    caches.guilds.get(channel.guild_id),
    caches.member(channel.guild_id, bot.user_id),
    data.temp_target_id ? caches.member(channel.guild_id, data.temp_target_id) : Promise.resolve(null),
  ]);
  if (!guild) throw fail(REASON.CHANNEL_NOT_FOUND, where);
  // The same computation and requirement as the operators' explainer (explainSendPermission).
  const permissions = effectivePermissions({ guild, member: botMember, channel, userId: bot.user_id });
  const missing = missingSendPermission(permissions);
  if (missing === 'view_channels') {
    throw fail(REASON.NO_VIEW_PERMISSION, {
      ...where,
      permission: SEND_REQUIREMENT_NAMES.view_channels,
    });
  }
  if (missing === 'send_messages') {
    throw fail(REASON.NO_SEND_PERMISSION, {
      ...where,
      permission: SEND_REQUIREMENT_NAMES.send_messages,
    });
  }
  if (data.temp_target_id && !targetMember && guild.user_id !== data.temp_target_id) {
    throw fail(REASON.TEMP_TARGET_NOT_MEMBER, {
      user_id: data.temp_target_id,
    });
  }

  return {
    bot,
    template,
    guild,
    channel,
    botMember,
    targetMember,
    permissions,
    cost: template ? template.consumption : MESSAGE_WITHOUT_TEMPLATE_COST,
    overflow: pipe ? pipe.overflow : DEFAULT_OVERFLOW,
  };
}
