import type { AlertReports } from '../domain/alert-reports.js';
import type { Config } from '../config.js';
import type { DatabaseProbe } from '../domain/database-probe.js';
import type { BatchObserver } from '../db/shared/batch-observer.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { discordStatus, type DiscordBridgeView } from './discord-status.js';
import { FreeSpaceReserve } from './free-space.js';
import { Metrics } from './metrics.js';
import { checkReadiness, healthOf, type Readiness } from './readiness.js';
import { StorageHealth, storageFailureOf } from './storage-health.js';

/** Media bytes come from a GROUP BY over every attachment row: computed at most this often. */
const MEDIA_BYTES_TTL_MS = 60_000;

export interface OperationsDeps {
  config: Config;
  /** Readiness asks the database whether it answers and can take writes; every alert-table count comes from the alert store. */
  database: DatabaseProbe;
  reports: Pick<AlertReports, 'outboxBacklog' | 'mediaBytes'>;
  logger: Logger;
  clock: Clock;
}

/**
 * The operations side of one service instance: storage health (disk full →
 * 503 and a degraded /healthz), the media free-space reserve, readiness, the
 * metrics registry (null unless METRICS=1) and the shutdown state the HTTP
 * layer reads (draining, requests in flight).
 */
export class Operations {
  readonly storage: StorageHealth;
  readonly reserve: FreeSpaceReserve;
  readonly metrics: Metrics | null;
  /** Set by main.ts at SIGTERM/SIGINT: every answer from then on carries `Connection: close`. */
  draining = false;
  /** Requests between the first middleware and their response (streamed bodies not included). */
  inFlight = 0;
  #discord: DiscordBridgeView | null = null;
  #liveCount: () => number = () => 0;
  #mediaBytes = { value: 0, at: -Infinity };

  constructor(private readonly deps: OperationsDeps) {
    this.storage = new StorageHealth(deps.logger);
    this.reserve = new FreeSpaceReserve(deps.config, deps.config.mediaFreeSpaceReserveBytes, this.storage);
    this.metrics = deps.config.metrics
      ? new Metrics(
          {
            sseClients: () => this.#liveCount(),
            outbox: () => deps.reports.outboxBacklog(deps.clock.now()),
            discord: () => (this.#discord ? discordStatus(this.#discord) : null),
            mediaBytes: () => this.mediaBytes(),
            storageDegraded: () => this.storage.failure !== null,
          },
          { discord: Boolean(deps.config.discordToken) },
        )
      : null;
  }

  /** Wires the parts built after this one (services.ts): the group commit and the live streams. */
  watch(parts: { batcher?: { observer?: BatchObserver }; live: { readonly size: number } }): void {
    const metrics = this.metrics;
    if (parts.batcher) parts.batcher.observer = {
      committed: (size) => {
        this.storage.succeeded();
        metrics?.batchCommitted(size);
      },
      failed: (err) => {
        const f = storageFailureOf(err);
        if (f) this.storage.failed(f);
        metrics?.batchFailed();
      },
    };
    this.#liveCount = () => parts.live.size;
  }

  /** The running Discord bridge (runtime.ts), for readiness and metrics; null when it stopped. */
  attachDiscord(bridge: DiscordBridgeView | null): void {
    this.#discord = bridge;
  }

  health() {
    return healthOf(this.storage);
  }

  readiness(): Promise<Readiness> {
    return checkReadiness({
      config: this.deps.config,
      database: this.deps.database,
      storage: this.storage,
      outbox: (now) => this.deps.reports.outboxBacklog(now),
      discord: () => this.#discord,
      draining: () => this.draining,
      now: () => this.deps.clock.now(),
    });
  }

  async mediaBytes(): Promise<number> {
    const now = Date.now();
    if (now - this.#mediaBytes.at >= MEDIA_BYTES_TTL_MS) this.#mediaBytes = { value: await this.deps.reports.mediaBytes(), at: now };
    return this.#mediaBytes.value;
  }
}
