import type { SerializedError } from '../../errors/index.js';
import type { InputEncoding } from '../../queue/job-input.js';
import type { Overflow, PlatformContext, TemplateWarning } from '../../render/index.js';
import type { GroupRenderInput } from './render-input.js';

/** What the main thread sends a render thread: plain data only (it is copied across). */
export interface RenderRequest {
  readonly id: number;
  /** Template id and version: the thread compiles each version once. */
  readonly templateKey: string;
  readonly source: string;
  readonly msgtype: number;
  /** The job's input (the request body, base64 or text), decoded in the thread. */
  readonly input: string;
  readonly inputEncoding: InputEncoding | undefined;
  /** Top-level variables beside `data`, when the message has any (a routed pipe's). */
  readonly variables?: Readonly<Record<string, unknown>>;
  /** A grouped message's `_group`, and a digest's collected inputs (render-input.ts). */
  readonly group?: GroupRenderInput;
  /** The pipe's `overflow` (render/fit.ts); absent: a message over the limits fails. */
  readonly overflow?: Overflow;
  readonly platform: PlatformContext;
  /** ms since the epoch, for dates and the countdown check. */
  readonly now: number;
}

export type { SerializedError };

export type RenderResponse =
  | {
      readonly id: number;
      readonly ok: true;
      readonly type: 9 | 10;
      readonly content: string;
      /** `content` packed for the delivery record (text/packed-text.ts); null when short. */
      readonly packed: string | null;
      readonly warnings: readonly TemplateWarning[];
      readonly warningCount: number;
      /** A message split over several (RenderedMessage.parts); absent: one. */
      readonly parts?: readonly string[];
    }
  | { readonly id: number; readonly ok: false; readonly error: SerializedError };

/**
 * What a thread starts with (its workerData): `running` holds one Int32, the id of the request
 * the thread is rendering, 0 while it is idle, written with Atomics. Shared memory rather than a
 * message: the pool's watchdog reads it at no cost per render, and can still read it after the
 * thread died (which render killed it).
 */
export interface ThreadData {
  readonly running: SharedArrayBuffer;
}

/** What a thread says once its modules are loaded and it can render. */
export const THREAD_READY = 'ready';
