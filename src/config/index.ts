import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as D from './defaults.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type RedisMode = 'standalone' | 'cluster' | 'sentinel';

/** A Redis node: a cluster's seed, or a sentinel. */
export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly mongoUrl: string;
  /**
   * REDIS_URL. Standalone: the server. Cluster: one or more seed nodes, comma separated (their
   * user, password and TLS are the first's). Sentinel: user, password, db and TLS of the master
   * (its host is what the sentinels name).
   */
  readonly redisUrl: string;
  /** How Redis is reached (REDIS_MODE): one server, a Redis Cluster, or a master behind Sentinel. */
  readonly redisMode: RedisMode;
  /** Cluster: the seed nodes of REDIS_URL. Sentinel: REDIS_SENTINELS. Standalone: empty. */
  readonly redisNodes: readonly RedisNode[];
  /** Sentinel: the master's name the sentinels watch (REDIS_SENTINEL_NAME). */
  readonly redisSentinelName: string;
  /**
   * How many BullMQ queues the pipe messages are spread over (REDIS_QUEUE_PARTITIONS, default
   * 1: the one queue `pipe-messages` of before). Each is under its own hash tag, so that on a
   * cluster they spread over the shards; a bot's messages all go to one partition.
   */
  readonly redisQueuePartitions: number;
  /**
   * The partitions a worker process consumes (WORKER_PARTITIONS, default all), sorted, each below
   * redisQueuePartitions; web processes do not use it. A partition no worker consumes is never drained.
   */
  readonly workerPartitions: readonly number[];
  /**
   * REDIS_WAIT_REPLICAS (default 1 behind Sentinel, else 0): replicas that must hold an accepted message before the
   * answer says so (Redis WAIT, up to DB_TIMEOUT_MS; fewer: 503). Behind Sentinel, 1 keeps a
   * message accepted just before a failover (replication is asynchronous). Not on a cluster.
   */
  readonly redisWaitReplicas: number;
  readonly redisPrefix: string;
  readonly adminToken: string;
  readonly logLevel: LogLevel;
  /** Public base URL used to build callback URLs (e.g. pipe URLs); no trailing slash. */
  readonly publicUrl: string;
  readonly bodyLimitBytes: number;
  /** Template inputs of at least this many bytes are deflated in their jobs. */
  readonly inputDeflateMinBytes: number;
  readonly dbTimeoutMs: number;
  readonly shutdownTimeoutMs: number;
  readonly botRateBurst: number;
  readonly botRatePerSecond: number;
  /** Default inbound pipe budget per pipe: burst (messages) and refill (messages per second). */
  readonly pipeRateBurst: number;
  readonly pipeRatePerSecond: number;
  /** Pipe messages a worker process handles at once (jobs). */
  readonly workerConcurrency: number;
  readonly renderThreads: number;
  /** TCP port of the worker's GET /metrics; 0 = any free port. */
  readonly metricsPort: number;
  /** How long one relay request may take before it is retried as UPSTREAM_TIMEOUT, in ms. */
  readonly relayTimeoutMs: number;
  /**
   * DELIVERY_IN_DOUBT: what a relay message whose request may have reached the relay without its
   * answer being kept (its worker died mid-request, or the relay did not answer in time) becomes.
   * `resend` (default): posted again (at least once: a duplicate now and then). `hold`: failed
   * with reason IN_DOUBT, for an operator to check and replay (at most once).
   */
  readonly deliveryInDoubt: DeliveryInDoubt;
  /** How long after it was queued a message may still wait out relay 429s, in ms. */
  readonly relayRateLimitPatienceMs: number;
  /** A worker's lock on a job, in ms; always longer than relayTimeoutMs (checked here). */
  readonly lockDurationMs: number;
  /** How often workers look for stalled jobs (lock lapsed), in ms. */
  readonly stalledIntervalMs: number;
  /** Delay before a failed delivery's first retry, doubled per further attempt, in ms. */
  readonly retryBaseMs: number;
  /** How long a dead worker's unwritten sent records wait before another worker takes them, in ms. */
  readonly sentLogClaimIdleMs: number;
  /** How many days after sending a sent record keeps the message as sent; 0: none past a sweep. */
  readonly renderedRetentionDays: number;
  /**
   * Rate-limiter cost of one message with an approved template, when the approval names none:
   * above 0, at most 1 (a normal message's cost).
   */
  readonly approvedTemplateConsumption: number;
  /** Whether the web process serves the operator console at /console/ (CONSOLE=on|off). */
  readonly console: boolean;
  /** The built console (index.html and assets/), an absolute path. */
  readonly consoleDir: string;
  /** How long a console session lives without use, in seconds. */
  readonly consoleSessionIdleS: number;
  /** How long a console session lives from sign-in, used or not, in seconds. */
  readonly consoleSessionMaxS: number;
  /** Console cookies carry Secure: PUBLIC_URL is https (TLS may end at a proxy in front). */
  readonly consoleSecureCookie: boolean;
  /** Whether the client address (and host, protocol) is read from a reverse proxy's X-Forwarded-* headers. */
  readonly trustProxy: boolean;
  /** With trustProxy, how many X-Forwarded-For entries from the right trusted proxies wrote. */
  readonly trustProxyHops: number;
  /** Accepted payloads each capturing pipe keeps (newest first); 0: none on any pipe. */
  readonly captureMaxItems: number;
  /** Largest body a capture keeps, in bytes; bigger ones are kept without their text. */
  readonly captureMaxBytes: number;
  /** How long each capture lives, in seconds. */
  readonly captureTtlS: number;
  /**
   * SECRETS_KEY: the 32-byte key that encrypts pipe signing secrets at rest (AES-256-GCM);
   * null when unset (then no pipe can be given a secret that must be kept readable).
   */
  readonly secretsKey: Buffer | null;
  /** SECRETS_KEYS_PREVIOUS: older keys, read to decrypt secrets sealed before a key change. */
  readonly secretsKeysPrevious: readonly Buffer[];
}

/** A bad or missing setting; start-up prints `message` as its one line and exits. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

function str(env: Env, name: string, fallback?: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') {
    if (fallback === undefined) throw new ConfigError(`config: ${name} is required but not set`);
    return fallback;
  }
  return raw;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`config: ${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

/** A number above 0 and at most `max`, written as a decimal (`0.5`, `1`, `.25`). */
function fraction(env: Env, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^(\d+\.?\d*|\.\d+)$/.test(raw) || !(value > 0 && value <= max)) {
    throw new ConfigError(`config: ${name} must be a number above 0 and at most ${max} (got "${raw}")`);
  }
  return value;
}

function url(env: Env, name: string, fallback: string, protocols: readonly string[]): string {
  const raw = str(env, name, fallback);
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`config: ${name} must be a URL (${protocols.join(' or ')})`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`config: ${name} must use ${protocols.join(' or ')} (got ${parsed.protocol})`);
  }
  return raw;
}

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'on' && raw !== 'off')
    throw new ConfigError(`config: ${name} must be on or off (got "${raw}")`);
  return raw === 'on';
}

/**
 * Where `npm run build` writes the console: dist/console of the installed package. This file is
 * src/config/index.ts under tsx and dist/config/index.js once built, two levels below the
 * package root either way.
 */
const BUILT_CONSOLE_DIR = fileURLToPath(new URL('../../dist/console', import.meta.url));

/**
 * A 32-byte key written as 64 hex digits or as base64 (standard or URL-safe, padding optional):
 * `openssl rand -hex 32` or `openssl rand -base64 32`.
 */
function parseKey(name: string, raw: string): Buffer {
  const text = raw.trim();
  let key: Buffer | null = null;
  if (/^[0-9a-fA-F]{64}$/.test(text)) key = Buffer.from(text, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) key = Buffer.from(text.replace(/=$/, ''), 'base64url');
  if (key === null || key.length !== D.SECRETS_KEY_BYTES) {
    throw new ConfigError(
      `config: ${name} must be ${D.SECRETS_KEY_BYTES} bytes written as 64 hex digits or in base64 (openssl rand -hex 32)`,
    );
  }
  return key;
}

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
const REDIS_MODES: readonly RedisMode[] = ['standalone', 'cluster', 'sentinel'];

export type DeliveryInDoubt = 'resend' | 'hold';
const IN_DOUBT_CHOICES: readonly DeliveryInDoubt[] = ['resend', 'hold'];

/** `host:port` items, comma separated (IPv6 hosts in brackets). */
function hostPorts(name: string, raw: string): RedisNode[] {
  const nodes = raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item) => {
      const m = /^(\[[^\]]+\]|[^:\s]+):(\d{1,5})$/.exec(item);
      const port = Number(m?.[2]);
      if (!m || port < 1 || port > 65535) {
        throw new ConfigError(`config: ${name} must be host:port items, comma separated (got "${item}")`);
      }
      return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
    });
  if (nodes.length === 0) throw new ConfigError(`config: ${name} names no host:port`);
  return nodes;
}

/** REDIS_MODE with what it needs: the cluster's seeds, or the sentinels and the master's name. */
function redisTopology(
  env: Env,
): Pick<
  Config,
  | 'redisUrl'
  | 'redisMode'
  | 'redisNodes'
  | 'redisSentinelName'
  | 'redisQueuePartitions'
  | 'workerPartitions'
  | 'redisWaitReplicas'
> {
  const mode = str(env, 'REDIS_MODE', 'standalone') as RedisMode;
  if (!REDIS_MODES.includes(mode)) {
    throw new ConfigError(`config: REDIS_MODE must be one of ${REDIS_MODES.join(', ')} (got "${mode}")`);
  }
  const redisQueuePartitions = int(env, 'REDIS_QUEUE_PARTITIONS', 1, 1, D.MAX_REDIS_QUEUE_PARTITIONS);
  // Replication is asynchronous: behind Sentinel a failover without WAIT loses messages already
  // answered 200 (docs/scaling.md), so it is on by default there.
  const redisWaitReplicas = int(env, 'REDIS_WAIT_REPLICAS', mode === 'sentinel' ? 1 : 0, 0, 16);
  // WAIT asks the node a client happens to pick on a cluster, not the shard that took the job.
  if (mode === 'cluster' && redisWaitReplicas > 0) {
    throw new ConfigError('config: REDIS_WAIT_REPLICAS is not supported with REDIS_MODE=cluster');
  }
  const raw = str(env, 'REDIS_URL', D.DEFAULT_REDIS_URL);
  const urls = mode === 'cluster' ? raw.split(',').map((u) => u.trim()) : [raw];
  for (const [i, u] of urls.entries()) {
    // A seed after the first may be host:port alone.
    const withScheme = i > 0 && !u.includes('://') ? `redis://${u}` : u;
    url({ REDIS_URL: withScheme }, 'REDIS_URL', D.DEFAULT_REDIS_URL, ['redis:', 'rediss:']);
  }
  // Cluster: the seeds of REDIS_URL; Sentinel: the sentinels, not REDIS_URL's host.
  const redisNodes =
    mode === 'cluster'
      ? urls.map((u) => {
          const parsed = new URL(u.includes('://') ? u : `redis://${u}`);
          return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port || 6379) };
        })
      : mode === 'sentinel'
        ? hostPorts('REDIS_SENTINELS', str(env, 'REDIS_SENTINELS'))
        : [];
  return {
    redisUrl: urls[0]!,
    redisMode: mode,
    redisNodes,
    redisSentinelName:
      mode === 'sentinel' ? str(env, 'REDIS_SENTINEL_NAME', D.DEFAULT_REDIS_SENTINEL_NAME) : '',
    redisQueuePartitions,
    workerPartitions: workerPartitions(env.WORKER_PARTITIONS, redisQueuePartitions),
    redisWaitReplicas,
  };
}

/**
 * WORKER_PARTITIONS: the partitions a worker process consumes, as comma-separated numbers and
 * ranges (`0-7`, `0,3,8-11`), each below REDIS_QUEUE_PARTITIONS; unset or blank: all of them. Sorted,
 * without repeats.
 */
export function workerPartitions(raw: string | undefined, partitions: number): readonly number[] {
  if (raw === undefined || raw.trim() === '') return Array.from({ length: partitions }, (_, i) => i);
  const bad = (why: string) =>
    new ConfigError(
      `config: WORKER_PARTITIONS ${why} (got "${raw}"; the partitions are 0 to ${partitions - 1}, ` +
        'written like 0-7 or 0,3,8-11)',
    );
  const chosen = new Set<number>();
  for (const item of raw.split(',').map((part) => part.trim())) {
    const m = /^(\d{1,5})(?:\s*-\s*(\d{1,5}))?$/.exec(item);
    if (!m) throw bad(item === '' ? 'has an empty item' : `has "${item}", neither a number nor a range`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from) throw bad(`has the backward range "${item}"`);
    if (to >= partitions) throw bad(`names partition ${to}, past the last one`);
    for (let i = from; i <= to; i++) chosen.add(i);
  }
  return [...chosen].sort((a, b) => a - b);
}

/** `partitions` written as WORKER_PARTITIONS takes them (`0-7`, `0,3,8-11`), for logs. */
export function formatPartitions(partitions: readonly number[]): string {
  const items: string[] = [];
  for (let i = 0; i < partitions.length; i++) {
    const from = partitions[i]!;
    while (partitions[i + 1] === partitions[i]! + 1) i++;
    items.push(from === partitions[i] ? String(from) : `${from}-${partitions[i]}`);
  }
  return items.join(',');
}

/**
 * Reads and validates the whole configuration once. This is the only place in Herald that reads
 * the process environment; everything else receives a Config.
 */
export function loadConfig(env: Env = process.env, fallbacks: Env = {}): Config {
  // Fallbacks fill what the environment leaves unset (the demo uses them for its defaults).
  if (Object.keys(fallbacks).length > 0) {
    const merged: Record<string, string | undefined> = { ...fallbacks };
    for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') merged[k] = v;
    env = merged;
  }
  const port = int(env, 'PORT', D.DEFAULT_PORT, 1, 65535);
  const adminToken = str(env, 'ADMIN_TOKEN');
  if (adminToken.length < D.MIN_ADMIN_TOKEN_LENGTH) {
    throw new ConfigError(`config: ADMIN_TOKEN must be at least ${D.MIN_ADMIN_TOKEN_LENGTH} characters`);
  }
  const logLevel = str(env, 'LOG_LEVEL', 'info');
  if (!LOG_LEVELS.includes(logLevel as LogLevel)) {
    throw new ConfigError(`config: LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  }
  const redisPrefix = str(env, 'REDIS_PREFIX', D.DEFAULT_REDIS_PREFIX);
  if (!/^[\w.-]{1,64}$/.test(redisPrefix)) {
    throw new ConfigError('config: REDIS_PREFIX must be 1-64 letters, digits, "_", "." or "-"');
  }
  const relayTimeoutMs = int(env, 'RELAY_TIMEOUT_MS', D.DEFAULT_RELAY_TIMEOUT_MS, 100, 600_000);
  const deliveryInDoubt = str(env, 'DELIVERY_IN_DOUBT', 'resend') as DeliveryInDoubt;
  if (!IN_DOUBT_CHOICES.includes(deliveryInDoubt)) {
    throw new ConfigError(
      `config: DELIVERY_IN_DOUBT must be one of ${IN_DOUBT_CHOICES.join(', ')} (got "${deliveryInDoubt}")`,
    );
  }
  const lockDurationMs = int(env, 'LOCK_DURATION_MS', D.DEFAULT_LOCK_DURATION_MS, 1_000, 3_600_000);
  // Refused rather than silently raised: an operator who lengthens the relay timeout should
  // decide the lock too (it is also how long a dead worker's jobs wait to be taken over).
  // See DEFAULT_LOCK_DURATION_MS for why the lock must outlast a relay request.
  if (lockDurationMs <= relayTimeoutMs) {
    throw new ConfigError(
      `config: LOCK_DURATION_MS (${lockDurationMs}) must be greater than RELAY_TIMEOUT_MS (${relayTimeoutMs})`,
    );
  }
  const publicUrl = url(env, 'PUBLIC_URL', `http://localhost:${port}`, ['http:', 'https:']).replace(
    /\/+$/,
    '',
  );
  const consoleDir = resolve(str(env, 'CONSOLE_DIR', BUILT_CONSOLE_DIR));
  return {
    port,
    host: str(env, 'HOST', D.DEFAULT_HOST),
    mongoUrl: url(env, 'MONGO_URL', D.DEFAULT_MONGO_URL, ['mongodb:', 'mongodb+srv:']),
    ...redisTopology(env),
    redisPrefix,
    adminToken,
    logLevel: logLevel as LogLevel,
    publicUrl,
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', D.DEFAULT_BODY_LIMIT_BYTES, 1024, D.MAX_BODY_LIMIT_BYTES),
    inputDeflateMinBytes: int(
      env,
      'INPUT_DEFLATE_MIN_BYTES',
      D.DEFAULT_INPUT_DEFLATE_MIN_BYTES,
      1,
      D.MAX_BODY_LIMIT_BYTES + 1,
    ),
    dbTimeoutMs: int(env, 'DB_TIMEOUT_MS', D.DEFAULT_DB_TIMEOUT_MS, 100, 60_000),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', D.DEFAULT_SHUTDOWN_TIMEOUT_MS, 0, 600_000),
    botRateBurst: int(env, 'BOT_RATE_BURST', D.DEFAULT_BOT_RATE_BURST, 1, 1_000_000),
    botRatePerSecond: int(env, 'BOT_RATE_PER_SECOND', D.DEFAULT_BOT_RATE_PER_SECOND, 1, 1_000_000),
    pipeRateBurst: int(env, 'PIPE_RATE_BURST', D.DEFAULT_PIPE_RATE_BURST, 1, 1_000_000),
    pipeRatePerSecond: int(env, 'PIPE_RATE_PER_SECOND', D.DEFAULT_PIPE_RATE_PER_SECOND, 1, 1_000_000),
    workerConcurrency: int(env, 'WORKER_CONCURRENCY', D.DEFAULT_WORKER_CONCURRENCY, 1, 1_000),
    renderThreads: int(env, 'RENDER_THREADS', D.DEFAULT_RENDER_THREADS, 0, 64),
    metricsPort: int(env, 'METRICS_PORT', D.DEFAULT_METRICS_PORT, 0, 65535),
    relayTimeoutMs,
    deliveryInDoubt,
    relayRateLimitPatienceMs: int(
      env,
      'RELAY_RATE_LIMIT_PATIENCE_MS',
      D.DEFAULT_RELAY_RATE_LIMIT_PATIENCE_MS,
      1_000,
      7 * 24 * 3_600_000,
    ),
    lockDurationMs,
    stalledIntervalMs: int(env, 'STALLED_INTERVAL_MS', D.DEFAULT_STALLED_INTERVAL_MS, 100, 600_000),
    retryBaseMs: int(env, 'RETRY_BASE_MS', D.DEFAULT_RETRY_BASE_MS, 10, 60_000),
    sentLogClaimIdleMs: int(
      env,
      'SENT_LOG_CLAIM_IDLE_MS',
      D.DEFAULT_SENT_LOG_CLAIM_IDLE_MS,
      1_000,
      3_600_000,
    ),
    renderedRetentionDays: int(
      env,
      'RENDERED_RETENTION_DAYS',
      D.DEFAULT_RENDERED_RETENTION_DAYS,
      0,
      D.MAX_RENDERED_RETENTION_DAYS,
    ),
    approvedTemplateConsumption: fraction(
      env,
      'APPROVED_TEMPLATE_CONSUMPTION',
      D.DEFAULT_APPROVED_TEMPLATE_CONSUMPTION,
      1,
    ),
    console: onOff(env, 'CONSOLE', true),
    consoleDir,
    consoleSessionIdleS: int(
      env,
      'CONSOLE_SESSION_IDLE_S',
      D.DEFAULT_CONSOLE_SESSION_IDLE_S,
      1,
      D.MAX_CONSOLE_SESSION_IDLE_S,
    ),
    consoleSessionMaxS: int(
      env,
      'CONSOLE_SESSION_MAX_S',
      D.DEFAULT_CONSOLE_SESSION_MAX_S,
      D.MIN_CONSOLE_SESSION_MAX_S,
      D.MAX_CONSOLE_SESSION_MAX_S,
    ),
    consoleSecureCookie: new URL(publicUrl).protocol === 'https:',
    trustProxy: onOff(env, 'TRUST_PROXY', D.DEFAULT_TRUST_PROXY),
    trustProxyHops: int(env, 'TRUST_PROXY_HOPS', D.DEFAULT_TRUST_PROXY_HOPS, 1, D.MAX_TRUST_PROXY_HOPS),
    captureMaxItems: int(env, 'CAPTURE_MAX_ITEMS', D.DEFAULT_CAPTURE_MAX_ITEMS, 0, D.MAX_CAPTURE_MAX_ITEMS),
    captureMaxBytes: int(env, 'CAPTURE_MAX_BYTES', D.DEFAULT_CAPTURE_MAX_BYTES, 0, D.MAX_BODY_LIMIT_BYTES),
    captureTtlS: int(env, 'CAPTURE_TTL_S', D.DEFAULT_CAPTURE_TTL_S, D.MIN_CAPTURE_TTL_S, D.MAX_CAPTURE_TTL_S),
    secretsKey: env.SECRETS_KEY ? parseKey('SECRETS_KEY', env.SECRETS_KEY) : null,
    secretsKeysPrevious: (env.SECRETS_KEYS_PREVIOUS ?? '')
      .split(',')
      .filter((k) => k.trim() !== '')
      .map((k) => parseKey('SECRETS_KEYS_PREVIOUS', k)),
  };
}
