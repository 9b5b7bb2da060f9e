import type { Config } from './config/index.js';
import { type Core, openCore, type ResourceOptions } from './core.js';
import { openPipeRuntime, type PipeDeps, type PipeRuntime } from './domain/pipes/runtime.js';
import type { Logger } from './log/logger.js';

export type { Core, ResourceOptions };

export interface Resources extends PipeDeps {
  /** Closes every connection; safe to call more than once. */
  close(): Promise<void>;
}

/** The web process's resources: the core, and the ingest runtime (producer queue, pipe caches). */
export async function openResources(
  config: Config,
  log: Logger,
  options: ResourceOptions = {},
): Promise<Resources> {
  const core = await openCore(config, log, options);
  const { close: closeCore, ...deps } = core;
  let pipeRuntime: PipeRuntime;
  try {
    pipeRuntime = await openPipeRuntime(deps, options.boundCalls ?? true);
  } catch (err) {
    await closeCore();
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    ...deps,
    pipeRuntime,
    close() {
      closing ??= (async () => {
        await pipeRuntime.close();
        await closeCore();
      })();
      return closing;
    },
  };
}
