/**
 * A render thread of the worker process (see render-pool.ts): decodes a pipe message's input,
 * renders its template and converts cards, off the process's main event loop. It receives only
 * plain data (template source, input text, platform context) and answers plain data.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DeliveryFailedError } from '../domain/deliveries/errors/delivery-failed-error.js';
import { HeraldError } from '../errors/index.js';
import { CompiledTemplates } from './compiled-templates.js';
import { renderPipeInput } from './render-input.js';
import {
  type RenderRequest,
  type RenderResponse,
  type SerializedError,
  THREAD_READY,
  type ThreadData,
} from './render-protocol.js';

const compiled = new CompiledTemplates();
/** The id of the render under way, 0 when idle (see ThreadData). */
const running = new Int32Array((workerData as ThreadData).running);

function serialize(err: unknown): SerializedError {
  if (err instanceof HeraldError) {
    return {
      kind: 'herald',
      key: err.key,
      params: { ...err.params },
      data: err.data ? { ...err.data } : null,
      ...(err instanceof DeliveryFailedError ? { reason: err.reason } : {}),
    };
  }
  return { kind: 'error', message: err instanceof Error ? err.message : String(err) };
}

function handle(req: RenderRequest): RenderResponse {
  try {
    const template = compiled.get(req.templateKey, req.source);
    const out = renderPipeInput(template, req.msgtype, req, req.platform, req.now);
    return { id: req.id, ok: true, type: out.type, content: out.content };
  } catch (err) {
    return { id: req.id, ok: false, error: serialize(err) };
  }
}

parentPort?.on('message', (req: RenderRequest) => {
  Atomics.store(running, 0, req.id);
  const res = handle(req);
  Atomics.store(running, 0, 0);
  parentPort?.postMessage(res);
});
parentPort?.postMessage(THREAD_READY);
