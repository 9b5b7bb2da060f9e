/**
 * A render thread of the worker process (see render-pool.ts): decodes a pipe message's input,
 * renders its template and converts cards, off the process's main event loop. It receives only
 * plain data (template source, input text, platform context) and answers plain data.
 */
import { parentPort } from 'node:worker_threads';
import { HeraldError } from '../errors/index.js';
import { type CompiledTemplate, compileTemplate, parseJsonData, renderMessage } from '../render/index.js';
import {
  type RenderRequest,
  type RenderResponse,
  type SerializedError,
  THREAD_READY,
} from './render-protocol.js';

/** Compiled templates this thread keeps, by id and version (the oldest goes first). */
const COMPILED_MAX = 500;
const compiled = new Map<string, CompiledTemplate>();

function compiledFor(key: string, source: string): CompiledTemplate {
  let c = compiled.get(key);
  if (!c) {
    c = compileTemplate(source);
    compiled.set(key, c);
    if (compiled.size > COMPILED_MAX) {
      const oldest = compiled.keys().next().value;
      if (oldest !== undefined) compiled.delete(oldest);
    }
  }
  return c;
}

function serialize(err: unknown): SerializedError {
  if (err instanceof HeraldError) {
    return {
      kind: 'herald',
      key: err.key,
      params: { ...err.params },
      data: err.data ? { ...err.data } : null,
    };
  }
  return { kind: 'error', message: err instanceof Error ? err.message : String(err) };
}

function handle(req: RenderRequest): RenderResponse {
  let input: unknown;
  try {
    input = parseJsonData(req.input);
  } catch {
    return { id: req.id, ok: false, error: { kind: 'input-invalid' } };
  }
  try {
    const out = renderMessage(
      { compiled: compiledFor(req.templateKey, req.source), msgtype: req.msgtype },
      input,
      req.platform,
      { now: req.now },
    );
    return { id: req.id, ok: true, type: out.type, content: out.content };
  } catch (err) {
    return { id: req.id, ok: false, error: serialize(err) };
  }
}

parentPort?.on('message', (req: RenderRequest) => {
  parentPort?.postMessage(handle(req));
});
parentPort?.postMessage(THREAD_READY);
