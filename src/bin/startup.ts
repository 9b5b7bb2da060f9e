import { type Config, ConfigError, loadConfig } from '../config/index.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Loads the config or exits with its one-line reason (no stack trace for a typo in an env var). */
export function configOrExit(fallbacks: Env = {}): Config {
  try {
    // The environment: read by the config module, its one reader.
    return loadConfig(undefined, fallbacks);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
