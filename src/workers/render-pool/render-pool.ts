import { Worker } from 'node:worker_threads';
import { revive } from '../../errors/index.js';
import type { Logger } from '../../log/logger.js';
import type { InputEncoding } from '../../queue/job-input.js';
import { TemplateLimitError } from '../../render/errors/template-limit-error.js';
import type { CompiledTemplate, Overflow, PlatformContext, RenderedMessage } from '../../render/index.js';
import { packText } from '../../text/packed-text.js';

/**
 * A render's result: the message, and its content packed for the delivery record
 * (text/packed-text.ts; null when short), on the render thread where there is one.
 */
export type PoolRendered = RenderedMessage & { readonly packed: string | null };

import { WorkerClosingError } from '../worker-closing-error.js';
import { type GroupRenderInput, renderPipeInput } from './render-input.js';
import { type RenderRequest, type RenderResponse, THREAD_READY, type ThreadData } from './render-protocol.js';

/**
 * How long one render may run on its thread, in ms, before the pool ends the thread and fails
 * that message with TEMPLATE_LIMIT (time). Counted from when the thread starts the render, not
 * from when it was queued: renders waiting behind a slow one are not charged for it. The engine
 * bounds every render itself (steps, output size, its clock: DEFAULT_LIMITS.maxRenderMs); this is the backstop for
 * work those checks never reach (one long built-in call), which no real template comes near.
 */
export const RENDER_HARD_LIMIT_MS = 1_000;
/**
 * How often the pool looks at what each thread is rendering, in ms: a render is stopped after
 * RENDER_HARD_LIMIT_MS plus at most this. (A quarter of the limit when a test sets one lower.)
 */
export const RENDER_WATCH_EVERY_MS = 100;

export interface RenderTask {
  readonly templateKey: string;
  readonly source: string;
  /** The compiled template, for rendering on the main thread when the pool has no threads. */
  readonly compiled: CompiledTemplate;
  readonly msgtype: number;
  /** The job's input and how it is written (queue/job-input.ts). */
  readonly input: string;
  readonly inputEncoding: InputEncoding | undefined;
  /** Top-level variables beside `data` (render-input.ts), when the message has any. */
  readonly variables?: Readonly<Record<string, unknown>> | undefined;
  /** A grouped message's `_group` and a digest's collected inputs (render-input.ts). */
  readonly group?: GroupRenderInput | undefined;
  /** What a message over the platform's limits becomes (render/fit.ts); absent: it fails. */
  readonly overflow?: Overflow | undefined;
  readonly platform: PlatformContext;
  readonly now: number;
}

interface Pending {
  /** Kept to send again if the thread is replaced before it answers. */
  readonly req: RenderRequest;
  readonly resolve: (m: PoolRendered) => void;
  readonly reject: (err: unknown) => void;
}

interface Slot {
  thread: Worker;
  /** Shared with the current thread: the id it is rendering, 0 when idle (ThreadData). */
  running: Int32Array;
  /** The watchdog's last sight: that render id, running since `watchedSince` (ms, or earlier). */
  watched: number;
  watchedSince: number;
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

// In the source tree (tests, `node --import tsx`) the thread is TypeScript and needs tsx's loader;
// built, it is plain JavaScript next to this file.
const HERE = import.meta.url;
const TS = HERE.endsWith('.ts');
const THREAD_URL = new URL(`./render-thread.${TS ? 'ts' : 'js'}`, HERE);

/**
 * Renders pipe messages on `size` worker threads, so that decoding a large body, rendering and
 * card validation run beside the main event loop (which keeps fetching jobs, renewing locks and
 * talking to sinks) and on more than one core. Each message goes to the thread with the fewest
 * in flight. A thread whose render overruns RENDER_HARD_LIMIT_MS, or that dies, is replaced:
 * the render it was running fails (for good after an overrun; for a retry after a crash, which
 * may not be the message's fault), and the renders queued behind it go to the new thread, so
 * they spend no attempt. `size` 0 renders on the main thread.
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
  private readonly watchdog: NodeJS.Timeout | undefined;

  constructor(
    size: number,
    private readonly log: Logger,
    private readonly hardLimitMs = RENDER_HARD_LIMIT_MS,
    /** The threads' entry module (a test swaps in one that fails to load). */
    private readonly threadUrl: URL = THREAD_URL,
  ) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
    if (size > 0) {
      const every = Math.max(1, Math.min(RENDER_WATCH_EVERY_MS, Math.floor(hardLimitMs / 4)));
      this.watchdog = setInterval(() => this.watch(), every);
      this.watchdog.unref();
    }
  }

  /** Resolves once every thread can render (start-up waits for it before taking jobs). */
  async ready(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.ready));
  }

  render(task: RenderTask): Promise<PoolRendered> {
    // The least busy thread that can render (no array built per message: this is the hot path).
    let slot: Slot | undefined;
    for (const s of this.slots)
      if (!s.dead && (slot === undefined || s.pending.size < slot.pending.size)) slot = s;
    if (this.closed) return Promise.reject(new WorkerClosingError());
    if (slot === undefined) {
      try {
        const out = renderPipeInput(task.compiled, task.msgtype, task, task.platform, task.now);
        return Promise.resolve({ ...out, packed: packText(out.content) });
      } catch (err) {
        return Promise.reject(err);
      }
    }
    const id = this.nextId;
    // Ids live in an Int32 (ThreadData); 0 means idle.
    this.nextId = id >= 0x7fffffff ? 1 : id + 1;
    const req: RenderRequest = {
      id,
      templateKey: task.templateKey,
      source: task.source,
      msgtype: task.msgtype,
      input: task.input,
      inputEncoding: task.inputEncoding,
      ...(task.variables === undefined ? {} : { variables: task.variables }),
      ...(task.group === undefined ? {} : { group: task.group }),
      ...(task.overflow === undefined ? {} : { overflow: task.overflow }),
      platform: task.platform,
      now: task.now,
    };
    const target = slot;
    return new Promise<PoolRendered>((resolve, reject) => {
      target.pending.set(id, { req, resolve, reject });
      target.thread.postMessage(req);
    });
  }

  /**
   * Ends every thread; renders still in flight are rejected with WorkerClosingError (their jobs
   * run again elsewhere, spending no attempt).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.watchdog);
    await Promise.all(this.slots.map((s) => this.end(s, () => new WorkerClosingError())));
  }

  private spawn(): Slot {
    const running = new Int32Array(new SharedArrayBuffer(4));
    const slot: Slot = {
      thread: startThread(this.threadUrl, running),
      running,
      watched: 0,
      watchedSince: 0,
      ready: Promise.resolve(),
      loaded: false,
      dead: false,
      pending: new Map(),
    };
    this.listen(slot);
    return slot;
  }

  /** The watchdog: a render seen running since more than hardLimitMs ago is stopped. */
  private watch(): void {
    const now = performance.now();
    for (const slot of this.slots) {
      if (slot.dead) continue;
      const id = Atomics.load(slot.running, 0);
      if (id === 0 || id !== slot.watched) {
        slot.watched = id;
        slot.watchedSince = now;
      } else if (now - slot.watchedSince >= this.hardLimitMs) {
        this.overrun(slot, id);
      }
    }
  }

  private overrun(slot: Slot, id: number): void {
    this.log.warn('render overran its hard limit; thread replaced', { limit_ms: this.hardLimitMs });
    void this.replace(
      slot,
      id,
      () =>
        new TemplateLimitError('time', {
          'zh-CN': `运行 ${this.hardLimitMs} 毫秒后仍未结束，渲染已被终止`,
          'en-US': `still running after ${this.hardLimitMs} ms; the render was stopped`,
        }),
    );
  }

  /**
   * Swaps in a new thread. The render the old one was running (`culprit`) is rejected with
   * `why()`; the others it held never started and go to the new thread (no attempt spent).
   */
  private async replace(slot: Slot, culprit: number, why: () => Error): Promise<void> {
    const old = slot.thread;
    slot.watched = 0;
    const p = slot.pending.get(culprit);
    if (p) {
      slot.pending.delete(culprit);
      p.reject(why());
    }
    if (this.closed) {
      rejectAll(slot, () => new WorkerClosingError());
    } else {
      slot.running = new Int32Array(new SharedArrayBuffer(4));
      slot.thread = startThread(this.threadUrl, slot.running);
      this.listen(slot);
      for (const q of slot.pending.values()) slot.thread.postMessage(q.req);
    }
    await old.terminate().catch(() => {});
  }

  /** A loaded thread failed or exited by itself: the render it was running is retried. */
  private crashed(slot: Slot, what: string): void {
    // Read before replace() swaps in the new thread's memory.
    const culprit = Atomics.load(slot.running, 0);
    void this.replace(slot, culprit, () => new Error(`render thread ${what}`));
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
      if (res.ok) {
        const { id: _id, ok: _ok, ...rendered } = res;
        p.resolve(rendered);
      } else p.reject(revive(res.error));
    });
    thread.on('error', (err) => {
      if (endedOnPurpose()) return;
      if (!slot.loaded) return this.bury(slot, err);
      this.log.error('render thread failed', { error: err });
      this.crashed(slot, `failed: ${err.message}`);
    });
    thread.on('exit', (code) => {
      if (endedOnPurpose() || slot.dead) return;
      if (!slot.loaded) return this.bury(slot, new Error(`exited (${code}) before it could render`));
      this.log.error('render thread exited', { code });
      this.crashed(slot, `exited (${code})`);
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
  for (const p of slot.pending.values()) p.reject(why());
  slot.pending.clear();
}

function startThread(url: URL, running: Int32Array): Worker {
  const workerData: ThreadData = { running: running.buffer as SharedArrayBuffer };
  // A thread does not inherit the main thread's loader hooks: from source, it registers tsx's
  // loader itself before importing the TypeScript entry.
  const thread = url.pathname.endsWith('.ts')
    ? new Worker(
        `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`,
        { eval: true, workerData },
      )
    : new Worker(url, { workerData });
  // Idle threads must not keep the process alive.
  thread.unref();
  return thread;
}
