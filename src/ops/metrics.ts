import { createRequire } from 'node:module';
import type { Counter, Histogram, Registry } from 'prom-client';
import type { DiscordStatus } from './discord-status.js';
import type { OutboxBacklog } from '../domain/alert-reports.js';

/** prom-client, loaded when a Metrics is made (METRICS=1): a service without metrics never loads it (docs/benchmarks.md "Memory: where it goes"). */
const promClient = (): typeof import('prom-client') => createRequire(import.meta.url)('prom-client') as typeof import('prom-client');

/** What the scrape reads; each is called once per scrape, never on a request path. */
export interface MetricSources {
  sseClients(): number;
  outbox(): Promise<OutboxBacklog>;
  /** null while no bridge runs (not configured: the Discord metrics are not registered at all). */
  discord(): DiscordStatus | null;
  mediaBytes(): Promise<number>;
  storageDegraded(): boolean;
}

/** What several gauges read, taken once per scrape (prom-client awaits async collect()). */
type Snapshot = { outbox: OutboxBacklog; discord: DiscordStatus | null };

export type DeliveryOutcome = 'sent' | 'retry' | 'failed';
/** A Web Push attempt's outcome; `gone`: the push service answered 404/410 and the subscription was removed. */
export type PushOutcome = DeliveryOutcome | 'gone';

/** Request latency buckets (seconds): a 201 takes ~0.2 ms on loopback, an attachment fetch up to 15 s. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

/**
 * The Prometheus registry of one service instance (its own Registry, not the
 * global one, so tests can build several). Request paths only touch counters
 * and histograms with label values from small fixed sets; everything that
 * needs a query (outbox, media bytes) or a walk (Discord channels) is a gauge
 * filled in `collect()` at scrape time.
 */
export class Metrics {
  readonly registry: Registry;
  readonly #webhookRequests: Counter<'outcome' | 'reason'>;
  readonly #webhookDuration: Histogram<'outcome'>;
  readonly #readDuration: Histogram<'method' | 'route' | 'status'>;
  readonly #batchSize: Histogram;
  readonly #batchFailures: Counter;
  readonly #deliveries: Counter<'outcome'>;
  readonly #pushes: Counter<'outcome'>;

  #snapshot: Promise<Snapshot> | null = null;

  constructor(
    private readonly sources: MetricSources,
    opts: { discord: boolean },
  ) {
    const { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } = promClient();
    this.registry = new Registry();
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.#webhookRequests = new Counter({
      name: 'alertbridge_webhook_requests_total',
      help: 'Webhook POSTs by outcome (accepted|refused) and reason (stored|replayed, or the problem type)',
      labelNames: ['outcome', 'reason'],
      registers,
    });
    this.#webhookDuration = new Histogram({
      name: 'alertbridge_webhook_request_duration_seconds',
      help: 'Webhook POST latency, body and attachment downloads included',
      labelNames: ['outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#readDuration = new Histogram({
      name: 'alertbridge_read_api_request_duration_seconds',
      help: 'Read API latency by route pattern (the live stream is not included)',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#batchSize = new Histogram({
      name: 'alertbridge_group_commit_batch_size',
      help: 'Writes committed per group-commit transaction',
      buckets: BATCH_BUCKETS,
      registers,
    });
    this.#batchFailures = new Counter({
      name: 'alertbridge_group_commit_failures_total',
      help: 'Group-commit transactions that could not commit (every write in them was refused)',
      registers,
    });
    this.#deliveries = new Counter({
      name: 'alertbridge_notification_deliveries_total',
      help: 'E-mail delivery attempts by outcome: sent, retry (failed, will retry), failed (given up)',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ['sent', 'retry', 'failed'] as const) this.#deliveries.inc({ outcome }, 0);
    this.#pushes = new Counter({
      name: 'alertbridge_push_deliveries_total',
      help: 'Web Push attempts by outcome: sent, retry (will retry), failed (given up), gone (the push service answered 404/410; the subscription was removed)',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ['sent', 'retry', 'failed', 'gone'] as const) this.#pushes.inc({ outcome }, 0);

    new Gauge({ name: 'alertbridge_sse_clients', help: 'Open live streams (GET /api/stream)', registers, collect() { this.set(sources.sseClients()); } });
    new Gauge({ name: 'alertbridge_storage_degraded', help: '1 while the last write failed for storage reasons (disk full, I/O error)', registers, collect() { this.set(sources.storageDegraded() ? 1 : 0); } });
    new Gauge({ name: 'alertbridge_media_bytes', help: 'Bytes of distinct media files referenced by alerts (refreshed at most once a minute)', registers, async collect() { this.set(await sources.mediaBytes()); } });
    // Sources that need a query or a walk are read once per scrape, in render(), before the gauges collect.
    const snap = () => this.#snapshot ?? this.#takeSnapshot();
    new Gauge({ name: 'alertbridge_outbox_pending_jobs', help: 'Notification jobs waiting to be fanned out into e-mails', registers, async collect() { this.set((await snap()).outbox.pending); } });
    new Gauge({ name: 'alertbridge_outbox_stale_jobs', help: 'Pending notification jobs due for more than 5 minutes', registers, async collect() { this.set((await snap()).outbox.stale); } });
    new Gauge({ name: 'alertbridge_outbox_oldest_due_seconds', help: 'How long the longest-due pending notification job has waited', registers, async collect() { this.set((await snap()).outbox.oldestDueMs / 1000); } });

    if (opts.discord) {
      new Gauge({ name: 'alertbridge_discord_gateway_up', help: '1 while the Discord gateway connection is ready', registers, async collect() { this.set((await snap()).discord?.up ? 1 : 0); } });
      new Gauge({
        name: 'alertbridge_discord_channels',
        help: 'Chat-connected channels by sync state: live (history complete), backfilling, behind (waiting for a backfill pass)',
        labelNames: ['state'],
        registers,
        async collect() {
          const c = (await snap()).discord?.channels ?? { live: 0, backfilling: 0, behind: 0 };
          for (const [state, n] of Object.entries(c)) this.set({ state }, n);
        },
      });
      new Gauge({ name: 'alertbridge_discord_pending_live_messages', help: 'Discord messages received and not stored yet', registers, async collect() { this.set((await snap()).discord?.pendingLive ?? 0); } });
    }
  }

  async #takeSnapshot(): Promise<Snapshot> {
    return { outbox: await this.sources.outbox(), discord: this.sources.discord() };
  }

  webhook(outcome: 'accepted' | 'refused', reason: string, seconds: number): void {
    this.#webhookRequests.inc({ outcome, reason });
    this.#webhookDuration.observe({ outcome }, seconds);
  }

  readApi(method: string, route: string, status: number, seconds: number): void {
    this.#readDuration.observe({ method, route, status: String(status) }, seconds);
  }

  batchCommitted(size: number): void {
    this.#batchSize.observe(size);
  }

  batchFailed(): void {
    this.#batchFailures.inc();
  }

  delivery(outcome: DeliveryOutcome): void {
    this.#deliveries.inc({ outcome });
  }

  push(outcome: PushOutcome): void {
    this.#pushes.inc({ outcome });
  }

  /** The exposition text; the gauges' collect() run here. */
  async render(): Promise<string> {
    this.#snapshot = this.#takeSnapshot();
    try {
      return await this.registry.metrics();
    } finally {
      this.#snapshot = null;
    }
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
