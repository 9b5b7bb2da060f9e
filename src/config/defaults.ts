/**
 * Every default Herald runs with, named and explained in one place. The config module reads the
 * environment over these; nothing else in the code base carries a magic number for them.
 */

/** HTTP port of the web process. */
export const DEFAULT_PORT = 3000;
/** Interface the web process binds; all interfaces, as a container expects. */
export const DEFAULT_HOST = '0.0.0.0';
/** Local FerretDB (or MongoDB) started by scripts/dev-services.sh. */
export const DEFAULT_MONGO_URL = 'mongodb://127.0.0.1:27017/herald';
/** Local Redis started by scripts/dev-services.sh. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
/** Prefix of every Redis key Herald writes (BullMQ queues included), so Herald can share a Redis. */
export const DEFAULT_REDIS_PREFIX = 'herald';
/** Shortest admin token accepted: shorter secrets can be guessed. */
export const MIN_ADMIN_TOKEN_LENGTH = 24;
/** Largest JSON request body, in bytes (1 MiB: a large GitLab push event fits). */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;
/** How long a request waits for the database to be selected before answering 503, in ms. */
export const DEFAULT_DB_TIMEOUT_MS = 2_000;
/** How long SIGTERM waits for in-flight requests or jobs before closing anyway, in ms. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
/** Bot REST budget per bot: burst size (requests). */
export const DEFAULT_BOT_RATE_BURST = 120;
/** Bot REST budget per bot: refill rate (requests per second). */
export const DEFAULT_BOT_RATE_PER_SECOND = 60;
/** Inbound pipe budget per pipe when the pipe sets none: burst (messages; a CI run's burst fits). */
export const DEFAULT_PIPE_RATE_BURST = 60;
/** Inbound pipe budget per pipe when the pipe sets none: refill (messages per second). */
export const DEFAULT_PIPE_RATE_PER_SECOND = 2;

/** Pipe messages one worker process works on at once (jobs in flight per process). */
export const DEFAULT_WORKER_CONCURRENCY = 16;

/**
 * Render threads per worker process: decoding bodies, rendering templates and validating cards
 * run there, beside the main event loop and on another core. 0 renders on the main thread.
 */
export const DEFAULT_RENDER_THREADS = 1;
/** Port of the worker process's GET /metrics (Prometheus); 0 picks a free port (logged at start). */
export const DEFAULT_METRICS_PORT = 9464;
/** Bot message budget (pipe deliveries) when the bot sets none: burst, in tokens. */
export const DEFAULT_BOT_MESSAGE_CAPACITY = 20;
/** Bot message budget when the bot sets none: refill, in tokens per second. */
export const DEFAULT_BOT_MESSAGE_PER_SECOND = 5;
