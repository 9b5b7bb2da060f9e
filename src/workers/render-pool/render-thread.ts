/**
 * A render thread of the worker process (see render-pool.ts): decodes a pipe message's input,
 * renders its template and converts cards, off the process's main event loop. It receives only
 * plain data (template source, input text, platform context) and answers plain data.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { serialize } from '../../errors/index.js';
import { compileCardSchemas } from '../../render/cards/index.js';
import { packText } from '../../text/packed-text.js';
import { CompiledTemplates } from './compiled-templates.js';
import { renderPipeInput } from './render-input.js';
import { type RenderRequest, type RenderResponse, THREAD_READY, type ThreadData } from './render-protocol.js';

const compiled = new CompiledTemplates();
/** The id of the render under way, 0 when idle (see ThreadData). */
const running = new Int32Array((workerData as ThreadData).running);

function handle(req: RenderRequest): RenderResponse {
  try {
    const template = compiled.get(req.templateKey, req.source);
    const out = renderPipeInput(template, req.msgtype, req, req.platform, req.now);
    // Packed here, off the main thread, for the delivery record (records.ts keptRendered).
    return {
      id: req.id,
      ok: true,
      type: out.type,
      content: out.content,
      packed: packText(out.content),
      warnings: out.warnings,
      warningCount: out.warningCount,
      ...(out.parts === undefined ? {} : { parts: out.parts }),
    };
  } catch (err) {
    return { id: req.id, ok: false, error: serialize(err) };
  }
}

parentPort?.on('message', (req: RenderRequest) => {
  // Before the render is marked running, so that its time limit does not pay for the compile
  // (once per thread, on its first card; a thread that renders none never compiles them).
  if (req.msgtype !== 1) compileCardSchemas();
  Atomics.store(running, 0, req.id);
  const res = handle(req);
  Atomics.store(running, 0, 0);
  parentPort?.postMessage(res);
});
parentPort?.postMessage(THREAD_READY);
