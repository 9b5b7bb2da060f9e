import { REASON } from '../../domain/deliveries/reasons.js';
import { keptRendered } from '../../domain/deliveries/records.js';
import { hasPermission, PERMISSION } from '../../domain/permissions.js';
import { requestVariables } from '../../domain/pipes/routing/routing.js';
import type { PipeJob } from '../../queue/pipe-messages.js';
import { fitRendered } from '../../render/index.js';
import type { RenderWarnings, StoredRendered } from '../../store/index.js';
import type { ProcessContext } from '../process-context.js';
import { templateVersionKey } from '../render-pool/compiled-templates.js';
import type { GroupRenderInput } from '../render-pool/render-input.js';
import type { OutgoingMessage } from '../sinks/types.js';
import { loadPlatformContext } from './context-loader.js';
import { fail } from './delivery-failure.js';
import { neutraliseGroupMentions } from './mentions.js';
import type { Checked } from './message-checks.js';
import { partMessage } from './message-parts.js';
import { timed } from './timed.js';

/** What the render produces: a message ready to send. */
export interface Prepared {
  /** The message, or the first of the messages it was split into (render/fit.ts). */
  readonly message: OutgoingMessage;
  /** Every message to send, in order: [message], or the parts of a split one (message-parts.ts). */
  readonly parts: readonly OutgoingMessage[];
  readonly notPermissionsMention: string[];
  /** The message as its delivery record keeps it once sent. */
  readonly rendered: StoredRendered;
}

/** Step 3: render. Throws a render, conversion or validation error for good. */
export const render = (
  ctx: ProcessContext,
  data: PipeJob,
  checked: Checked,
  group?: GroupRenderInput,
): Promise<Prepared> =>
  timed(
    (outcome, seconds) => ctx.metrics.renderDuration.observe({ outcome }, seconds),
    () => renderMessage(ctx, data, checked, group),
  );

/**
 * A digest of a pipe without a template: its items' KMarkdown, oldest first, one paragraph each
 * (docs/pipes.md, "Grouping"); cards cannot be joined, so a card digest is its newest item.
 */
function plainDigest(type: 9 | 10, group: GroupRenderInput | undefined): string | null {
  const items = group?.items;
  if (items === undefined || items.length === 0) return null;
  if (type === 10) return items[items.length - 1]?.input ?? null;
  return items.map((i) => i.input).join('\n\n');
}

async function renderMessage(
  ctx: ProcessContext,
  data: PipeJob,
  checked: Checked,
  group: GroupRenderInput | undefined,
): Promise<Prepared> {
  const { deps, caches } = ctx;
  const { bot, template, guild, channel, botMember, targetMember, permissions } = checked;
  let type: 9 | 10;
  let content: string;
  // The content packed for the record by the render pool (on its thread), for a template's.
  let packed: string | null | undefined;
  // PHP warnings the template's render went past: the message goes out, the record shows them.
  let warnings: RenderWarnings | undefined;
  // A message split over several: each one's content (render/fit.ts).
  let parts: readonly string[] | undefined;
  if (template) {
    const compiled = caches.compiledTemplate(template.id, template.version, template.content);
    const platform = await loadPlatformContext(deps, caches, compiled.platformNeeds, {
      bot,
      guild,
      channel,
      botMember,
      targetUserId: data.temp_target_id,
      targetMember,
      quoteId: data.quote,
    });
    // Decoding the input, rendering and card validation run on a render thread (render-pool.ts).
    const out = await ctx.renderer.render({
      templateKey: templateVersionKey(template.id, template.version),
      source: template.content,
      compiled,
      msgtype: template.msgtype,
      input: data.input,
      inputEncoding: data.input_encoding,
      variables: requestVariables(data),
      group,
      platform,
      overflow: checked.overflow,
      now: deps.now(),
    });
    type = out.type;
    content = out.content;
    packed = out.packed;
    if (out.warningCount > 0) warnings = { warnings: out.warnings, warning_count: out.warningCount };
    parts = out.parts;
  } else {
    if (typeof data.input !== 'string') {
      throw fail(REASON.INPUT_INVALID, {
        detail: { 'zh-CN': 'content 必须是字符串', 'en-US': 'content must be a string' },
      });
    }
    type = data.type ?? 9;
    const input = plainDigest(type, group) ?? data.input;
    const out = fitRendered(input, type === 10 ? 'json' : null, checked.overflow, deps.now());
    content = out.content;
    parts = out.parts;
  }
  const mayMention = hasPermission(permissions, PERMISSION.MENTION_EVERYONE);
  const mentions = neutraliseGroupMentions(content, mayMention);
  // Neutralising only shortens a text, so a fitted part stays within the limits.
  const message: OutgoingMessage = {
    msg_id: data.msg_id,
    bot_id: bot.id,
    author_id: bot.user_id,
    channel_id: channel.id,
    guild_id: channel.guild_id,
    type,
    content: mentions.content,
    quote: data.quote,
    temp_target_id: data.temp_target_id,
    nonce: data.nonce,
    create_at: deps.now(),
    not_permissions_mention: mentions.blocked,
  };
  const all =
    parts === undefined
      ? [message]
      : parts.map((p, i) => partMessage(message, i, neutraliseGroupMentions(p, mayMention).content));
  return {
    // Packed again only when neutralising mentions changed the content (or nothing packed it).
    rendered: keptRendered(
      type,
      mentions.content,
      mentions.content === content ? packed : undefined,
      warnings,
    ),
    notPermissionsMention: mentions.blocked,
    message: all[0] as OutgoingMessage,
    parts: all,
  };
}
