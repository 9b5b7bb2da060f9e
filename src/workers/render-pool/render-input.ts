import { REASON } from '../../domain/deliveries/reasons.js';
import { GROUP_VARIABLE } from '../../domain/pipes/grouping.js';
import { DeliveryError } from '../../errors/index.js';
import { type InputEncoding, inputText } from '../../queue/job-input.js';
import {
  type CompiledTemplate,
  type Overflow,
  type PlatformContext,
  parseJsonData,
  type RenderedMessage,
  renderMessage,
} from '../../render/index.js';

/** One collected input of a digest: a message's job input, as its job held it. */
export interface GroupItemInput {
  readonly input: string;
  readonly inputEncoding: InputEncoding | undefined;
}

/**
 * What a grouped message renders with besides its own input (docs/templates.md, `_group`):
 * `meta` as the template sees it, and a digest's collected inputs, oldest first (absent: the
 * message's own input is the one item).
 */
export interface GroupRenderInput {
  readonly meta: Readonly<Record<string, unknown>>;
  readonly items?: readonly GroupItemInput[];
}

/** A job input decoded as PHP's json_decode would; INPUT_INVALID for good otherwise. */
function decodeInput(input: string, encoding: InputEncoding | undefined): unknown {
  let text: string;
  try {
    text = inputText(input, encoding);
  } catch {
    throw new DeliveryError(REASON.INPUT_INVALID, {
      detail: { 'zh-CN': '无法解码任务输入', 'en-US': 'the job input could not be decoded' },
    });
  }
  try {
    return parseJsonData(text);
  } catch {
    throw new DeliveryError(REASON.INPUT_INVALID, {
      detail: { 'zh-CN': '模板输入不是 JSON', 'en-US': 'the template input is not JSON' },
    });
  }
}

/**
 * A pipe message's template step, wherever it runs (a render thread, or the main thread when
 * RENDER_THREADS is 0): decodes the body as PHP's json_decode would, renders, converts cards,
 * fits a message over the platform's limits as the pipe's `overflow` says.
 * A body that is not JSON, or a job input that cannot be decoded, fails for good (INPUT_INVALID);
 * render errors are thrown as they are.
 */
export function renderPipeInput(
  compiled: CompiledTemplate,
  msgtype: number,
  jobInput: {
    readonly input: string;
    readonly inputEncoding: InputEncoding | undefined;
    /** Top-level variables beside `data` (a routed pipe's `_event`, `_headers`). */
    readonly variables?: Readonly<Record<string, unknown>> | undefined;
    readonly group?: GroupRenderInput | undefined;
    /** What a message over the platform's limits becomes (render/fit.ts); absent: it fails. */
    readonly overflow?: Overflow | undefined;
  },
  platform: PlatformContext,
  now: number,
): RenderedMessage {
  let input: unknown;
  let variables = jobInput.variables;
  const group = jobInput.group;
  if (group === undefined) {
    input = decodeInput(jobInput.input, jobInput.inputEncoding);
  } else {
    // A digest renders its newest item as `data` and every item in `_group.items`.
    const items =
      group.items === undefined
        ? [decodeInput(jobInput.input, jobInput.inputEncoding)]
        : group.items.map((i) => decodeInput(i.input, i.inputEncoding));
    input = items.length > 0 ? items[items.length - 1] : null;
    variables = { ...variables, [GROUP_VARIABLE]: { ...group.meta, items } };
  }
  return renderMessage(
    { compiled, msgtype },
    input,
    platform,
    variables === undefined ? { now } : { now, variables },
    jobInput.overflow ?? 'fail',
  );
}
