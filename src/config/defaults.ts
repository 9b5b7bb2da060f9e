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
/** REDIS_SENTINEL_NAME: the name Redis's own sentinel.conf example gives the master. */
export const DEFAULT_REDIS_SENTINEL_NAME = 'mymaster';
/**
 * Most pipe queue partitions (REDIS_QUEUE_PARTITIONS). Every worker process consumes every
 * partition (one blocking connection each, per node on a cluster), so the count is kept small.
 */
export const MAX_REDIS_QUEUE_PARTITIONS = 256;
/** Prefix of every Redis key Herald writes (BullMQ queues included), so Herald can share a Redis. */
export const DEFAULT_REDIS_PREFIX = 'herald';
/** Shortest admin token accepted: shorter secrets can be guessed. */
export const MIN_ADMIN_TOKEN_LENGTH = 24;
/** Largest JSON request body, in bytes (1 MiB: a large GitLab push event fits). */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;
/** Largest BODY_LIMIT_BYTES an operator may set, in bytes (64 MiB). */
export const MAX_BODY_LIMIT_BYTES = 64 * 1024 * 1024;
/**
 * Smallest template input deflated in its job, in bytes (src/queue/job-input.ts says why). Below
 * it the saving is a few hundred bytes at most, not worth a deflate stream's set-up (its memory
 * and about 10 µs) on every request. Set above BODY_LIMIT_BYTES, no input is deflated: for a
 * rolling upgrade from a version whose workers cannot read deflated inputs.
 */
export const DEFAULT_INPUT_DEFLATE_MIN_BYTES = 1024;
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
/**
 * How long one relay request (sink `relay`) may take, headers and body, before it counts as a
 * timeout and is retried with reason UPSTREAM_TIMEOUT, in ms.
 */
export const DEFAULT_RELAY_TIMEOUT_MS = 10_000;
/**
 * How long a message may wait out relay 429s, counted from when it was queued (accepted, or
 * replayed), in ms: 1 h. A 429 spends no attempt, so without this bound a relay that never
 * stops answering 429 would keep a message waiting for ever, neither sent nor failed. A 429
 * whose wait would end past this fails the message with UPSTREAM_RATE_LIMITED (dead, and
 * replayable, which starts a new window). An hour is far past any platform's rate-limit window
 * and still leaves a message that is worth reading.
 */
export const DEFAULT_RELAY_RATE_LIMIT_PATIENCE_MS = 60 * 60 * 1000;
/**
 * How long a worker's lock on a job lives, in ms. BullMQ renews it every half of this while the
 * job runs, so a live worker keeps its jobs however long they take; the lock lapses only when
 * renewals stop (the worker died, lost Redis, or its event loop is stuck), and then another
 * worker takes the job after at most this long plus STALLED_INTERVAL_MS. It must be longer than
 * any render (synchronous, bounded by the engine: no renewal runs during it) and longer than
 * RELAY_TIMEOUT_MS, which start-up checks: a worker that stops renewing as its relay request
 * starts keeps the job until that request has answered or timed out, so a second worker never
 * posts the same message while the first one's request is still open.
 */
export const DEFAULT_LOCK_DURATION_MS = 15_000;
/**
 * How often each worker looks for jobs whose lock lapsed (stalled jobs), in ms. A stalled job is
 * noticed at the second look after its lock lapsed, so within twice this.
 */
export const DEFAULT_STALLED_INTERVAL_MS = 5_000;
/**
 * Delay before a failed delivery's first retry, in ms; doubled for each further attempt, with
 * jitter and a cap (src/workers/delivery/backoff.ts). 1 s: a relay's brief hiccup is retried quickly, and
 * the five attempts span about 8-15 s.
 */
export const DEFAULT_RETRY_BASE_MS = 1_000;
/**
 * Sent records another worker read but did not write for this long are taken over, in ms: that
 * worker died in between (src/workers/recovery/sent-log.ts). 30 s: far above any store write, and such
 * records only show late (pipemsg-status answers from the completed job meanwhile).
 */
export const DEFAULT_SENT_LOG_CLAIM_IDLE_MS = 30_000;
/**
 * How long a sent message's record keeps the message as sent (its `rendered`, shown on the
 * console's delivery page), in days after it was sent: 7, like a dead message's replay input.
 * Past it each worker's hourly sweep drops it (the record stays). 0 keeps none past that sweep.
 */
export const DEFAULT_RENDERED_RETENTION_DAYS = 7;
/** Most RENDERED_RETENTION_DAYS an operator may set (10 years). */
export const MAX_RENDERED_RETENTION_DAYS = 3650;
/** Bot message budget (pipe deliveries) when the bot sets none: burst, in tokens. */
export const DEFAULT_BOT_MESSAGE_CAPACITY = 20;
/** Bot message budget when the bot sets none: refill, in tokens per second. */
export const DEFAULT_BOT_MESSAGE_PER_SECOND = 5;
/**
 * Rate-limiter cost of one message sent with an approved template (a normal message costs 1):
 * what an operator's approval grants when it names no consumption of its own. Half: an approved
 * template's messages go out twice as fast under the bot's limit.
 */
export const DEFAULT_APPROVED_TEMPLATE_CONSUMPTION = 0.5;
/** How long an operator's console session lives without use, in seconds (each call renews it). */
export const DEFAULT_CONSOLE_SESSION_IDLE_S = 30 * 60;
/** Longest CONSOLE_SESSION_IDLE_S an operator may set, in seconds (1 day). */
export const MAX_CONSOLE_SESSION_IDLE_S = 24 * 60 * 60;
/**
 * How long a console session lives from sign-in however much it is used, in seconds (12 h: a
 * working day). An open page that refreshes on its own would otherwise keep a session for ever.
 */
export const DEFAULT_CONSOLE_SESSION_MAX_S = 12 * 60 * 60;
/** Shortest and longest CONSOLE_SESSION_MAX_S an operator may set, in seconds (1 min, 30 days). */
export const MIN_CONSOLE_SESSION_MAX_S = 60;
export const MAX_CONSOLE_SESSION_MAX_S = 30 * 24 * 60 * 60;
/**
 * Whether the web process believes a reverse proxy's X-Forwarded-For (and -Host, -Proto): off, as
 * a client that reaches Herald directly could write any address there.
 */
export const DEFAULT_TRUST_PROXY = false;
/**
 * With TRUST_PROXY on, how many X-Forwarded-For entries, from the right, trusted proxies wrote
 * (one per proxy in front); the leftmost of those is the client. 1: one proxy in front.
 */
export const DEFAULT_TRUST_PROXY_HOPS = 1;
/** Most TRUST_PROXY_HOPS an operator may set (proxies in front of Herald). */
export const MAX_TRUST_PROXY_HOPS = 16;

/**
 * Captured payloads (docs/pipes.md, "Captured payloads"): how many of a pipe's latest accepted
 * payloads Redis keeps (20: a day of a busy CI, enough to pick a sample from). 0 keeps none on
 * any pipe. Each pipe can keep up to this many times CAPTURE_MAX_BYTES in Redis, so this bounds
 * Redis memory: pipes x items x (bytes + a few hundred for metadata and headers).
 */
export const DEFAULT_CAPTURE_MAX_ITEMS = 20;
/** Most CAPTURE_MAX_ITEMS an operator may set. */
export const MAX_CAPTURE_MAX_ITEMS = 1000;
/**
 * Largest body a capture keeps, in bytes (64 KiB: most webhook events; a large GitLab push is
 * bigger). A bigger body is captured without its text (`body: null`, `too_large: true`). 0 keeps
 * metadata only.
 */
export const DEFAULT_CAPTURE_MAX_BYTES = 64 * 1024;
/**
 * How long each capture is kept, in seconds (7 days, like a dead message's replay input). Redis
 * expires each one on its own.
 */
export const DEFAULT_CAPTURE_TTL_S = 7 * 24 * 60 * 60;
/** Shortest and longest CAPTURE_TTL_S an operator may set, in seconds (1 min, 90 days). */
export const MIN_CAPTURE_TTL_S = 60;
export const MAX_CAPTURE_TTL_S = 90 * 24 * 60 * 60;

/** Bytes of SECRETS_KEY (AES-256-GCM), the key that encrypts pipe signing secrets at rest. */
export const SECRETS_KEY_BYTES = 32;
