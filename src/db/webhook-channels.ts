import type Database from 'better-sqlite3';
import type { WebhookChannel } from '../domain/webhook/ingest.js';
import type { WebhookChannels } from '../domain/webhook/webhook-channels.js';

export const CHANNEL_CACHE_MAX = 10_000;

/**
 * The channel behind a webhook token. Found channels are cached: the lookup
 * was a sixth of a webhook's CPU under load. The cache is dropped when this
 * process changes channels (invalidate) and when SQLite's data_version says
 * another connection (the admin CLI) committed anything. That is checked at
 * most once a millisecond (it was ~5 % of a webhook's CPU per request): a
 * token the CLI rotated stops working within a millisecond of the CLI's commit.
 */
export class SqliteWebhookChannels implements WebhookChannels {
  private readonly byToken: Database.Statement<[string], Omit<WebhookChannel, 'chatConnected'> & { chatConnected: number }>;
  private readonly dataVersion: Database.Statement<[], number>;
  private readonly cache = new Map<string, WebhookChannel>();
  private cacheVersion = -1;
  private versionCheckedAt = -Infinity;

  constructor(sqlite: Database.Database) {
    this.byToken = sqlite.prepare(
      `SELECT c.id, c.name, c.slug, c.workspace_id AS workspaceId, w.name AS workspaceName,
              EXISTS (SELECT 1 FROM discord_links dl WHERE dl.channel_id = c.id) AS chatConnected,
              c.signing_secret AS signingSecret
       FROM channels c JOIN workspaces w ON w.id = c.workspace_id WHERE c.webhook_token = ?`,
    );
    this.dataVersion = sqlite.prepare<[], number>('PRAGMA data_version').pluck();
  }

  find(webhookToken: string): WebhookChannel | undefined {
    const t = performance.now();
    if (t - this.versionCheckedAt >= 1) {
      this.versionCheckedAt = t;
      const version = this.dataVersion.get();
      if (version !== this.cacheVersion) {
        this.cache.clear();
        this.cacheVersion = version ?? -1;
      }
    }
    const cached = this.cache.get(webhookToken);
    if (cached) return cached;
    const row = this.byToken.get(webhookToken);
    if (!row) return undefined;
    const channel = { ...row, chatConnected: row.chatConnected === 1 };
    if (this.cache.size >= CHANNEL_CACHE_MAX) this.cache.clear();
    this.cache.set(webhookToken, channel);
    return channel;
  }

  invalidate(): void {
    this.cache.clear();
  }
}
