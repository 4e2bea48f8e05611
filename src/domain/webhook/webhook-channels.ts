import type { WebhookChannel } from './ingest.js';

/**
 * The channel behind a webhook token, cached by both engines: src/db/sqlite/webhook-channels.ts (one node; the
 * SQLite file's data_version catches the admin CLI) and src/db/pg/webhook-channels.ts (every node
 * drops its cache when any node or the CLI commits a channel change).
 */
export interface WebhookChannels {
  find(webhookToken: string): WebhookChannel | undefined | Promise<WebhookChannel | undefined>;
  /** Drops this node's cache (the PostgreSQL one also hears other nodes' changes by itself). */
  invalidate(): void;
}
