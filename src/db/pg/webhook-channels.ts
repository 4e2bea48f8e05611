import type { WebhookChannel } from '../../domain/webhook/ingest.js';
import type { WebhookChannels } from '../../domain/webhook/webhook-channels.js';
import type { SqlExecutor } from '../shared/executor.js';
import { CHANNEL_BY_TOKEN, CHANNEL_CACHE_MAX } from '../shared/webhook-channel-rows.js';
import { TOPICS, type PgNotifyBus } from './notify-bus.js';

export interface PgWebhookChannelsOptions {
  /** Safety net: a cached channel is read again after this long even if no notification came; default 60 s. */
  ttlMs?: number;
  /** Monotonic milliseconds (for the TTL); default performance.now. */
  now?: () => number;
}

/**
 * The channel behind a webhook token on PostgreSQL, cached per node like SqliteWebhookChannels.
 * Any change to what a cached channel says, by any node or the admin CLI, fires a notification at
 * its COMMIT (triggers in drizzle-pg/0004_cluster_coordination.sql) on which every node drops its
 * cache: a token rotated on node A stops working on node B as soon as the notification arrives
 * (milliseconds), not after the TTL.
 *
 * While this node does not listen (listener connection lost), nothing is cached or answered from
 * the cache, and the cache is dropped again when listening resumes: notifications missed in the gap
 * never leave a stale channel behind. A lookup that was running while the cache was dropped does
 * not store its answer (it may predate the change).
 */
export class PgWebhookChannels implements WebhookChannels {
  private readonly cache = new Map<string, { channel: WebhookChannel; at: number }>();
  private generation = 0;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly database: SqlExecutor,
    private readonly bus: Pick<PgNotifyBus, 'subscribe' | 'isListening'>,
    opts: PgWebhookChannelsOptions = {},
  ) {
    this.ttlMs = opts.ttlMs ?? 60_000;
    this.now = opts.now ?? (() => performance.now());
    const drop = () => this.invalidate();
    bus.subscribe(TOPICS.webhookChannels, { message: drop, resumed: drop, lost: drop });
  }

  async find(webhookToken: string): Promise<WebhookChannel | undefined> {
    const cacheable = this.bus.isListening(TOPICS.webhookChannels);
    if (cacheable) {
      const hit = this.cache.get(webhookToken);
      if (hit && this.now() - hit.at < this.ttlMs) return hit.channel;
    }
    const generation = this.generation;
    const at = this.now();
    const channel = await this.database.get(CHANNEL_BY_TOKEN, { webhookToken });
    if (!channel) return undefined;
    if (cacheable && generation === this.generation && this.bus.isListening(TOPICS.webhookChannels)) {
      if (this.cache.size >= CHANNEL_CACHE_MAX) this.cache.clear();
      this.cache.set(webhookToken, { channel, at });
    }
    return channel;
  }

  invalidate(): void {
    this.generation++;
    this.cache.clear();
  }
}
