import { REASON } from '../../domain/deliveries/reasons.js';
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
    /** What a message over the platform's limits becomes (render/fit.ts); absent: it fails. */
    readonly overflow?: Overflow | undefined;
  },
  platform: PlatformContext,
  now: number,
): RenderedMessage {
  let text: string;
  try {
    text = inputText(jobInput.input, jobInput.inputEncoding);
  } catch {
    throw new DeliveryError(REASON.INPUT_INVALID, {
      detail: 'the job input could not be decoded',
    });
  }
  let input: unknown;
  try {
    input = parseJsonData(text);
  } catch {
    throw new DeliveryError(REASON.INPUT_INVALID, {
      detail: 'the template input is not JSON',
    });
  }
  return renderMessage(
    { compiled, msgtype },
    input,
    platform,
    jobInput.variables === undefined ? { now } : { now, variables: jobInput.variables },
    jobInput.overflow ?? 'fail',
  );
}
