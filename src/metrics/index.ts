import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/*
 * Prometheus metrics of one process (web or worker). Each process — and each test app — gets its
 * own Registry through metricsFor(deps), never prom-client's global one, so several apps in one
 * test process do not collide. Names follow Prometheus conventions: `_total` counters, seconds.
 */

/** Render and dispatch histogram buckets, in seconds (0.5 ms to 10 s). */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One pipe queue partition's counts, read at scrape time (src/queue/probes.ts). */
export interface PartitionStats {
  /** The partition's label value ('0' while there is one queue). */
  readonly partition: string;
  /** Waiting to be taken (BullMQ's wait, paused and prioritized). */
  readonly waiting: number;
  /** Put off until a time (accepted with a delay, rate-limit waits, retry backoffs). */
  readonly delayed: number;
  /** Of `delayed`, those whose time has come: BullMQ moves them to waiting when a worker next fetches. */
  readonly due: number;
  readonly active: number;
  /** Failed for good and kept (dead messages). */
  readonly failed: number;
  /** Seconds since the oldest message ready to run (waiting, or due) became ready; 0 when none. */
  readonly oldestReadyAgeS: number;
}

/** A worker process's job slots, read at scrape time (src/workers/utilisation.ts). */
export interface UtilisationReading {
  /** Job slots of this process (its BullMQ concurrency). */
  readonly slots: number;
  /** Slots running a job now. */
  readonly busy: number;
  /** Slot-seconds spent running jobs since the process started. */
  readonly busySeconds: number;
  /** Busy slot time / (slots x wall time) over the last window (from start when younger), 0..1. */
  readonly ratio: number;
}

export interface HeraldMetrics {
  readonly registry: Registry;
  /** Pipe messages accepted by the web process (incremented by the pipe ingest). */
  readonly accepted: Counter;
  /** Requests of routed pipes answered without a message, by reason (domain/pipes/routing). */
  readonly skipped: Counter<'reason'>;
  /**
   * Signature checks of signed pipes (issue 20), by scheme and outcome (ok, missing, invalid,
   * expired, unreadable); no pipe label, so its series stay few however many pipes there are.
   */
  readonly signatureChecks: Counter<'scheme' | 'outcome'>;
  /** Messages the sink took, by sink (store, relay). */
  readonly sent: Counter<'sink'>;
  /**
   * Parts of messages split over several (docs/pipes.md, "Messages that always fit") the sink
   * took, by sink: each a message to the platform, and a token of its bot's budget.
   */
  readonly partsSent: Counter<'sink'>;
  /** Messages failed for good, by reason code. */
  readonly failed: Counter<'reason'>;
  /** Messages another one carried (a group's digest or edited carrier), by grouping mode. */
  readonly folded: Counter<'mode'>;
  /** Rate-limit waits (bot bucket empty, or relay 429), by bot and source (bucket, upstream). */
  readonly rateLimitedWaits: Counter<'bot_id' | 'source'>;
  /** Retryable failures that were retried, by reason code. */
  readonly retries: Counter<'reason'>;
  /** `outcome`: ok, or error (the render failed: a template, card or input error). */
  readonly renderDuration: Histogram<'outcome'>;
  /** `outcome`: ok, or error (refused, rate-limited, timed out, unreachable). */
  readonly dispatchDuration: Histogram<'sink' | 'outcome'>;
  /** Time from acceptance to sent, in seconds. */
  readonly acceptToSent: Histogram;
  /**
   * Sets where the gauges read from at scrape time: the queue's (web and worker) and the job
   * slots' (worker only: its gauges are registered with the probe, so a web process shows none).
   */
  setProbes(probes: MetricProbes): void;
}

export interface MetricProbes {
  /** Every pipe queue partition's counts; one Redis call per partition (queue/probes.ts). */
  queueStats?: () => Promise<readonly PartitionStats[]>;
  utilisation?: () => UtilisationReading;
  /** Worker only: the partitions this process consumes (WORKER_PARTITIONS). */
  consumedPartitions?: readonly number[];
}

export function createMetrics(): HeraldMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'herald_process_' });
  let probes: MetricProbes = {};
  const registers = [registry];
  const accepted = new Counter({
    name: 'herald_pipe_messages_accepted_total',
    help: 'Pipe messages accepted by the web API',
    registers,
  });
  const skipped = new Counter({
    name: 'herald_pipe_events_skipped_total',
    help: 'Events of routed pipes answered without a message (event_ignored, no_template, no_event)',
    labelNames: ['reason'] as const,
    registers,
  });
  const signatureChecks = new Counter({
    name: 'herald_pipe_signature_checks_total',
    help: 'Signature checks on pipes that require a signature, by scheme and outcome (ok, missing, invalid, expired, unreadable)',
    labelNames: ['scheme', 'outcome'] as const,
    registers,
  });
  const sent = new Counter({
    name: 'herald_pipe_messages_sent_total',
    help: 'Pipe messages delivered to their sink',
    labelNames: ['sink'] as const,
    registers,
  });
  const partsSent = new Counter({
    name: 'herald_pipe_message_parts_sent_total',
    help: 'Parts of pipe messages split over several, delivered to their sink',
    labelNames: ['sink'] as const,
    registers,
  });
  const failed = new Counter({
    name: 'herald_pipe_messages_failed_total',
    help: 'Pipe messages that failed for good, by reason code',
    labelNames: ['reason'] as const,
    registers,
  });
  const folded = new Counter({
    name: 'herald_pipe_messages_folded_total',
    help: "Pipe messages carried by another message of their group (a digest, or an update's carrier), by grouping mode",
    labelNames: ['mode'] as const,
    registers,
  });
  const rateLimitedWaits = new Counter({
    name: 'herald_pipe_rate_limited_waits_total',
    help: 'Times a message waited for its bot budget (source=bucket) or an upstream 429 (source=upstream)',
    labelNames: ['bot_id', 'source'] as const,
    registers,
  });
  const retries = new Counter({
    name: 'herald_pipe_retries_total',
    help: 'Delivery attempts that failed and will be retried, by reason code',
    labelNames: ['reason'] as const,
    registers,
  });
  const renderDuration = new Histogram({
    name: 'herald_pipe_render_duration_seconds',
    help: 'Time to render one pipe message (template compile if not cached, render, mention check)',
    labelNames: ['outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const dispatchDuration = new Histogram({
    name: 'herald_pipe_dispatch_duration_seconds',
    help: 'Time to hand one message to its sink',
    labelNames: ['sink', 'outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const acceptToSent = new Histogram({
    name: 'herald_pipe_accept_to_sent_seconds',
    help: 'Time from acceptance by the web API to delivery',
    buckets: DURATION_BUCKETS,
    registers,
  });
  // Read once per scrape, however many gauges use it: a scrape asks for every gauge at once.
  let reading: Promise<readonly PartitionStats[] | null> | undefined;
  const queueStats = () => {
    const probe = probes.queueStats;
    if (!probe) return Promise.resolve(null);
    reading ??= probe()
      .catch(() => null)
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  new Gauge({
    name: 'herald_pipe_queue_depth',
    help: 'Pipe messages in the queue, by partition and state (waiting, delayed, active, failed)',
    labelNames: ['partition', 'state'] as const,
    registers,
    async collect() {
      // A failed read shows no series rather than the last ones: an autoscaler must not act on stale counts.
      this.reset();
      for (const p of (await queueStats()) ?? []) {
        for (const state of ['waiting', 'delayed', 'active', 'failed'] as const) {
          this.set({ partition: p.partition, state }, p[state]);
        }
      }
    },
  });
  new Gauge({
    name: 'herald_pipe_queue_ready_messages',
    help: 'Pipe messages ready to run, by partition: waiting, and delayed ones whose time has come',
    labelNames: ['partition'] as const,
    registers,
    async collect() {
      this.reset();
      for (const p of (await queueStats()) ?? []) this.set({ partition: p.partition }, p.waiting + p.due);
    },
  });
  new Gauge({
    name: 'herald_pipe_queue_oldest_waiting_age_seconds',
    help: 'Seconds since the oldest message ready to run (waiting, or delayed and due) became ready, by partition; 0 when none',
    labelNames: ['partition'] as const,
    registers,
    async collect() {
      this.reset();
      for (const p of (await queueStats()) ?? []) this.set({ partition: p.partition }, p.oldestReadyAgeS);
    },
  });
  new Gauge({
    name: 'herald_pipe_dead_messages',
    help: 'Pipe messages that failed for good and were not replayed',
    registers,
    async collect() {
      const stats = await queueStats();
      if (stats) this.set(stats.reduce((n, p) => n + p.failed, 0));
    },
  });
  // The job slots' gauges, registered once a worker gives their probe (setProbes).
  const utilisation = () => probes.utilisation?.();
  const slotMetrics = [
    new Gauge({
      name: 'herald_worker_slots',
      help: "This worker process's job slots (WORKER_CONCURRENCY)",
      registers: [],
      collect() {
        const u = utilisation();
        if (u) this.set(u.slots);
      },
    }),
    new Gauge({
      name: 'herald_worker_slots_busy',
      help: 'Job slots of this worker process running a job now',
      registers: [],
      collect() {
        const u = utilisation();
        if (u) this.set(u.busy);
      },
    }),
    new Counter({
      name: 'herald_worker_busy_seconds_total',
      help: 'Slot-seconds this worker process spent running jobs (rate / slots = utilisation over any window)',
      registers: [],
      collect() {
        const u = utilisation();
        if (!u) return;
        this.reset();
        this.inc(u.busySeconds);
      },
    }),
    new Gauge({
      name: 'herald_worker_utilisation_ratio',
      help: 'Share of the slot time of this worker process spent running jobs over the last 60 s (0..1)',
      registers: [],
      collect() {
        const u = utilisation();
        if (u) this.set(u.ratio);
      },
    }),
  ];
  // Worker only, registered with its probe: which partitions this process consumes, so a
  // dashboard can tell a partition no worker covers (its queue is never drained).
  const consumedMetric = new Gauge({
    name: 'herald_worker_partition_consumed',
    help: 'Pipe queue partitions this worker process consumes (WORKER_PARTITIONS): 1 per partition',
    labelNames: ['partition'],
    registers: [],
    collect() {
      this.reset();
      for (const i of probes.consumedPartitions ?? []) this.set({ partition: String(i) }, 1);
    },
  });
  return {
    registry,
    accepted,
    skipped,
    signatureChecks,
    sent,
    folded,
    partsSent,
    failed,
    rateLimitedWaits,
    retries,
    renderDuration,
    dispatchDuration,
    acceptToSent,
    setProbes(p) {
      if (p.utilisation && !probes.utilisation) {
        for (const m of slotMetrics) registry.registerMetric(m);
      }
      if (p.consumedPartitions && !probes.consumedPartitions) registry.registerMetric(consumedMetric);
      probes = { ...probes, ...p };
    },
  };
}

const byOwner = new WeakMap<object, HeraldMetrics>();

/**
 * The metrics of the process that `owner` (its Deps) belongs to, created on first use. Web
 * handlers, the pipe ingest and the worker all call this with their deps and share one set.
 */
export function metricsFor(owner: object): HeraldMetrics {
  let m = byOwner.get(owner);
  if (!m) {
    m = createMetrics();
    byOwner.set(owner, m);
  }
  return m;
}
