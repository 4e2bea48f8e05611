import type { WebhookChannel } from '../../domain/webhook/ingest.js';
import type { WebhookChannels } from '../../domain/webhook/webhook-channels.js';
import { CHANNEL_BY_TOKEN, CHANNEL_CACHE_MAX } from '../shared/webhook-channel-rows.js';
import { statement } from '../shared/statement.js';
import type { SqliteExecutor } from './executor.js';

/** Bumped by SQLite whenever another connection commits. */
const DATA_VERSION = statement<Record<string, never>, { version: number }>('PRAGMA data_version');

/**
 * The channel behind a webhook token. Found channels are cached: the lookup
 * was a sixth of a webhook's CPU under load. The cache is dropped when this
 * process changes channels (invalidate) and when SQLite's data_version says
 * another connection (the admin CLI) committed anything. That is checked at
 * most once a millisecond (it was ~5 % of a webhook's CPU per request): a
 * token the CLI rotated stops working within a millisecond of the CLI's commit.
 */
export class SqliteWebhookChannels implements WebhookChannels {
  private readonly cache = new Map<string, WebhookChannel>();
  private cacheVersion = -1;
  private versionCheckedAt = -Infinity;

  constructor(private readonly database: SqliteExecutor) {}

  find(webhookToken: string): WebhookChannel | undefined {
    const checkedAt = performance.now();
    if (checkedAt - this.versionCheckedAt >= 1) {
      this.versionCheckedAt = checkedAt;
      const version = this.database.valueNow(DATA_VERSION, {});
      if (version !== this.cacheVersion) {
        this.cache.clear();
        this.cacheVersion = version ?? -1;
      }
    }
    const cached = this.cache.get(webhookToken);
    if (cached) return cached;
    const channel = this.database.getNow(CHANNEL_BY_TOKEN, { webhookToken });
    if (!channel) return undefined;
    if (this.cache.size >= CHANNEL_CACHE_MAX) this.cache.clear();
    this.cache.set(webhookToken, channel);
    return channel;
  }

  invalidate(): void {
    this.cache.clear();
  }
}
