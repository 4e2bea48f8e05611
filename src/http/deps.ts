import type { AlertDeliveries } from '../domain/routes/alert-deliveries.js';
import type { Config } from '../config.js';
import type { AlertStore } from '../domain/alert-store.js';
import type { ReadApi } from '../domain/read-api.js';
import type { AlertActions } from '../domain/alert-actions.js';
import type { SearchAlerts } from '../domain/search.js';
import type { ChatThreads } from '../domain/chat/threads.js';
import type { TokenAuthenticator } from '../domain/tokens.js';
import type { AcceptWebhookAlert } from '../domain/webhook/accept-alert.js';
import type { WebhookFiles } from '../domain/webhook/request-files.js';
import type { Logger } from '../lib/logger.js';
import type { Clock } from '../lib/clock.js';
import type { Heartbeats } from '../domain/heartbeats/heartbeats.js';
import type { Pinger } from '../domain/heartbeats/pinger.js';
import type { MediaStore } from '../media/store.js';
import type { LiveStreams } from '../notify/live-stream.js';
import type { Operations } from '../ops/operations.js';

/**
 * What the API's routes and middleware use, and nothing more: the composition root
 * (src/services.ts) passes its services, which fit this shape, so the HTTP layer
 * never depends on the whole service graph.
 */
export interface HttpDeps {
  config: Config;
  logger: Logger;
  /** Readiness, metrics, storage health and the shutdown drain. */
  ops: Operations;
  /** Read-API tokens → principal, and each token's budget (its rate limit). */
  auth: TokenAuthenticator;
  acceptAlert: AcceptWebhookAlert;
  /** A webhook request's files (uploads streamed in by the body reader). */
  webhookFiles: WebhookFiles;
  readApi: ReadApi;
  alertActions: AlertActions;
  /** GET /api/alerts/{id}/deliveries. */
  alertDeliveries: AlertDeliveries;
  search: SearchAlerts;
  chatThreads: ChatThreads;
  /** The live stream (SSE) behind GET /api/stream. */
  live: LiveStreams;
  /** The Discord-compatible `?wait=true` answer reads the stored alert back. */
  store: Pick<AlertStore, 'reads'>;
  /** Serves /media and names the re-hosted files' URLs. */
  media: MediaStore;
  /** The ping URLs and GET /api/heartbeats; `clock` reads the checks' states. */
  heartbeats: { pinger: Pinger; checks: Heartbeats; clock: Clock };
}
