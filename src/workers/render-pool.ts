import { Worker } from 'node:worker_threads';
import { DeliveryFailedError } from '../domain/deliveries/errors/delivery-failed-error.js';
import { HeraldError } from '../errors/index.js';
import type { Logger } from '../log/logger.js';
import type { InputEncoding } from '../queue/job-input.js';
import { TemplateLimitError } from '../render/errors/template-limit-error.js';
import type { CompiledTemplate, PlatformContext, RenderedMessage } from '../render/index.js';
import { renderPipeInput } from './render-input.js';
import {
  type RenderRequest,
  type RenderResponse,
  type SerializedError,
  THREAD_READY,
} from './render-protocol.js';

/**
 * A render that has not answered after this long, in ms, is stopped by ending its thread. The
 * engine bounds every render itself (steps, output size, a 50 ms clock check); this is the
 * backstop for a render the engine's checks never reach, with room for the renders queued in
 * front of it on the same thread.
 */
export const RENDER_HARD_TIMEOUT_MS = 5_000;

export interface RenderTask {
  readonly templateKey: string;
  readonly source: string;
  /** The compiled template, for rendering on the main thread when the pool has no threads. */
  readonly compiled: CompiledTemplate;
  readonly msgtype: number;
  /** The job's input and how it is written (queue/job-input.ts). */
  readonly input: string;
  readonly inputEncoding: InputEncoding | undefined;
  readonly platform: PlatformContext;
  readonly now: number;
}

interface Pending {
  readonly resolve: (m: RenderedMessage) => void;
  readonly reject: (err: unknown) => void;
  readonly timer: NodeJS.Timeout;
}

interface Slot {
  thread: Worker;
  /**
   * Resolves once the thread has loaded and can render (or was replaced or closed on purpose);
   * rejects if it failed before it could render.
   */
  ready: Promise<void>;
  /** Whether the current thread has loaded. */
  loaded: boolean;
  /** Its thread failed before it could render: not replaced (a new one would fail alike). */
  dead: boolean;
  readonly pending: Map<number, Pending>;
}

function revive(e: SerializedError): Error {
  if (e.kind === 'error') return new Error(e.message);
  const options = e.data ? { data: e.data } : {};
  return e.reason === undefined
    ? new HeraldError(e.key, e.params, options)
    : new DeliveryFailedError(e.reason, e.key, e.params, options);
}

// In the source tree (tests, `node --import tsx`) the thread is TypeScript and needs tsx's loader;
// built, it is plain JavaScript next to this file.
const HERE = import.meta.url;
const TS = HERE.endsWith('.ts');
const THREAD_URL = new URL(`./render-thread.${TS ? 'ts' : 'js'}`, HERE);

/**
 * Renders pipe messages on `size` worker threads, so that decoding a large body, rendering and
 * card validation run beside the main event loop (which keeps fetching jobs, renewing locks and
 * talking to sinks) and on more than one core. Each message goes to the thread with the fewest
 * in flight. A thread that dies or overruns RENDER_HARD_TIMEOUT_MS is replaced; the message at
 * fault fails for good, the others it held are retried. `size` 0 renders on the main thread.
 *
 * A thread that fails before it can render (its module does not load) is not replaced, which
 * would only fail again in a loop: at start-up ready() rejects, so the worker refuses to start
 * with the error; later, renders go to the threads left, or to the main thread when none is
 * (the engine's own step, size and clock limits still bound them; only the hard stop is lost).
 */
export class RenderPool {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    size: number,
    private readonly log: Logger,
    private readonly hardTimeoutMs = RENDER_HARD_TIMEOUT_MS,
    /** The threads' entry module (a test swaps in one that fails to load). */
    private readonly threadUrl: URL = THREAD_URL,
  ) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  /** Resolves once every thread can render (start-up waits for it before taking jobs). */
  async ready(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.ready));
  }

  render(task: RenderTask): Promise<RenderedMessage> {
    // The least busy thread that can render (no array built per message: this is the hot path).
    let slot: Slot | undefined;
    for (const s of this.slots)
      if (!s.dead && (slot === undefined || s.pending.size < slot.pending.size)) slot = s;
    if (this.closed) return Promise.reject(new Error('render pool closed'));
    if (slot === undefined) {
      try {
        return Promise.resolve(renderPipeInput(task.compiled, task.msgtype, task, task.platform, task.now));
      } catch (err) {
        return Promise.reject(err);
      }
    }
    const id = this.nextId++;
    const req: RenderRequest = {
      id,
      templateKey: task.templateKey,
      source: task.source,
      msgtype: task.msgtype,
      input: task.input,
      inputEncoding: task.inputEncoding,
      platform: task.platform,
      now: task.now,
    };
    const target = slot;
    return new Promise<RenderedMessage>((resolve, reject) => {
      const timer = setTimeout(() => this.overrun(target, id), this.hardTimeoutMs);
      target.pending.set(id, { resolve, reject, timer });
      target.thread.postMessage(req);
    });
  }

  /** Ends every thread; renders still in flight are rejected (their jobs are retried). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.slots.map((s) => this.end(s, () => new Error('render pool closed'))));
  }

  private spawn(): Slot {
    const slot: Slot = {
      thread: startThread(this.threadUrl),
      ready: Promise.resolve(),
      loaded: false,
      dead: false,
      pending: new Map(),
    };
    this.listen(slot);
    return slot;
  }

  private overrun(slot: Slot, id: number): void {
    const p = slot.pending.get(id);
    if (!p) return;
    slot.pending.delete(id);
    p.reject(
      new TemplateLimitError('time', `no result within ${this.hardTimeoutMs} ms; the render was stopped`),
    );
    this.log.warn('render overran its hard limit; thread replaced', { timeout_ms: this.hardTimeoutMs });
    void this.replace(slot, () => new Error('render thread replaced after another message overran'));
  }

  /** Swaps in a new thread; what the old one still held is rejected with `why()` (retried). */
  private async replace(slot: Slot, why: () => Error): Promise<void> {
    const old = slot.thread;
    if (!this.closed) {
      slot.thread = startThread(this.threadUrl);
      this.listen(slot);
    }
    rejectAll(slot, why);
    await old.terminate().catch(() => {});
  }

  private listen(slot: Slot): void {
    const thread = slot.thread;
    slot.loaded = false;
    // Ended on purpose (replaced, or the pool closed) rather than failed by itself.
    const endedOnPurpose = () => this.closed || slot.thread !== thread;
    slot.ready = new Promise<void>((resolve, reject) => {
      const onReady = (m: unknown) => {
        if (m !== THREAD_READY) return;
        thread.off('message', onReady);
        slot.loaded = true;
        resolve();
      };
      thread.on('message', onReady);
      thread.once('error', (err) => reject(new Error(`render thread could not start: ${err.message}`)));
      thread.once('exit', (code) => {
        if (endedOnPurpose()) resolve();
        else reject(new Error(`render thread exited (${code}) before it could render`));
      });
    });
    // Nobody awaits a replacement's readiness; a failure is logged below.
    slot.ready.catch(() => {});
    thread.on('message', (res: RenderResponse | typeof THREAD_READY) => {
      if (res === THREAD_READY) return;
      const p = slot.pending.get(res.id);
      if (!p) return;
      slot.pending.delete(res.id);
      clearTimeout(p.timer);
      if (res.ok) p.resolve({ type: res.type, content: res.content });
      else p.reject(revive(res.error));
    });
    thread.on('error', (err) => {
      if (endedOnPurpose()) return;
      if (!slot.loaded) return this.bury(slot, err);
      this.log.error('render thread failed', { error: err });
      void this.replace(slot, () => new Error(`render thread failed: ${err.message}`));
    });
    thread.on('exit', (code) => {
      if (endedOnPurpose() || slot.dead) return;
      if (!slot.loaded) return this.bury(slot, new Error(`exited (${code}) before it could render`));
      this.log.error('render thread exited', { code });
      void this.replace(slot, () => new Error(`render thread exited (${code})`));
    });
  }

  /** A thread that failed before it could render: not replaced; its renders are retried. */
  private bury(slot: Slot, err: Error): void {
    if (slot.dead) return;
    slot.dead = true;
    const left = this.slots.filter((s) => !s.dead).length;
    this.log.error('render thread could not start; not replaced', {
      error: err,
      threads_left: left,
      ...(left === 0 ? { rendering_on: 'main thread' } : {}),
    });
    rejectAll(slot, () => new Error(`render thread could not start: ${err.message}`));
    void slot.thread.terminate().catch(() => {});
  }

  private async end(slot: Slot, why: () => Error): Promise<void> {
    rejectAll(slot, why);
    await slot.thread.terminate().catch(() => {});
  }
}

/** Rejects every render the slot holds with `why()` (the jobs are retried). */
function rejectAll(slot: Slot, why: () => Error): void {
  for (const p of slot.pending.values()) {
    clearTimeout(p.timer);
    p.reject(why());
  }
  slot.pending.clear();
}

function startThread(url: URL): Worker {
  // A thread does not inherit the main thread's loader hooks: from source, it registers tsx's
  // loader itself before importing the TypeScript entry.
  const thread = url.pathname.endsWith('.ts')
    ? new Worker(
        `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`,
        { eval: true },
      )
    : new Worker(url);
  // Idle threads must not keep the process alive.
  thread.unref();
  return thread;
}
