/**
 * The live preview's timing: a render is asked for `delayMs` after the last change (typing
 * does not send a request per key), and only the newest request's answer is shown. Each request
 * gets a sequence number; an answer whose number is not the latest sent is dropped, so a slow
 * answer to an older text never replaces a newer one, and the request it belongs to is aborted
 * when a newer one is sent.
 */

export type PreviewOutcome<Req, Res> =
  | { ok: true; request: Req; result: Res }
  | { ok: false; request: Req; error: unknown };

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface PreviewRunnerOptions<Req, Res> {
  /** Renders one request; `signal` aborts when a newer request is sent. */
  render(request: Req, signal: AbortSignal): Promise<Res>;
  /** The newest request's answer (or error). */
  onOutcome(outcome: PreviewOutcome<Req, Res>): void;
  /** Whether a render is waiting or on its way (for a "rendering…" hint). */
  onBusy?(busy: boolean): void;
  /** The debounce, ms (default 250). */
  delayMs?: number;
  timers?: Timers;
}

export interface PreviewRunner<Req> {
  /** Asks for a render of `request` once no other change has come for the delay. */
  schedule(request: Req): void;
  /** Renders `request` now (a button press, the first render), dropping any waiting one. */
  now(request: Req): void;
  /** Stops: nothing more is sent or reported. */
  dispose(): void;
}

export const PREVIEW_DELAY_MS = 250;

export function createPreviewRunner<Req, Res>(options: PreviewRunnerOptions<Req, Res>): PreviewRunner<Req> {
  const timers = options.timers ?? realTimers;
  const delay = options.delayMs ?? PREVIEW_DELAY_MS;
  let timer: unknown;
  let waiting = false;
  let sent = 0;
  let inFlight: AbortController | null = null;
  let disposed = false;

  const busy = () => options.onBusy?.(waiting || inFlight !== null);

  const send = (request: Req) => {
    if (disposed) return;
    waiting = false;
    inFlight?.abort();
    const controller = new AbortController();
    inFlight = controller;
    const mine = ++sent;
    busy();
    const settle = (outcome: PreviewOutcome<Req, Res>) => {
      if (disposed || mine !== sent) return;
      inFlight = null;
      options.onOutcome(outcome);
      busy();
    };
    let promise: Promise<Res>;
    try {
      promise = options.render(request, controller.signal);
    } catch (error) {
      promise = Promise.reject(error);
    }
    promise.then(
      (result) => settle({ ok: true, request, result }),
      (error: unknown) => settle({ ok: false, request, error }),
    );
  };

  const cancelWaiting = () => {
    if (waiting) timers.clear(timer);
    waiting = false;
  };

  return {
    schedule(request) {
      if (disposed) return;
      cancelWaiting();
      waiting = true;
      busy();
      timer = timers.set(() => send(request), delay);
    },
    now(request) {
      cancelWaiting();
      send(request);
    },
    dispose() {
      cancelWaiting();
      inFlight?.abort();
      inFlight = null;
      disposed = true;
    },
  };
}
