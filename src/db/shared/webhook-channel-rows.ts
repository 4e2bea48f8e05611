import type { WebhookChannel } from '../../domain/webhook/ingest.js';
import { statement } from './statement.js';

/** How many channels each engine's webhook-token cache holds before it starts over. */
export const CHANNEL_CACHE_MAX = 10_000;

/** The channel behind a webhook token (both engines cache what it finds: src/db/{sqlite,pg}/webhook-channels.ts). */
export const CHANNEL_BY_TOKEN = statement<{ webhookToken: string }, WebhookChannel>(
  `SELECT c.id, c.name, c.slug, c.workspace_id AS "workspaceId", w.name AS "workspaceName",
          EXISTS (SELECT 1 FROM discord_links dl WHERE dl.channel_id = c.id) AS "chatConnected",
          c.signing_secret AS "signingSecret"
   FROM channels c JOIN workspaces w ON w.id = c.workspace_id WHERE c.webhook_token = :webhookToken`,
  { booleans: ['chatConnected'] },
);
