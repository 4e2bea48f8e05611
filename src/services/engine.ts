import type { SqlExecutor } from '../db/shared/executor.js';
import type { DatabaseProbe } from '../domain/database-probe.js';
import type { WebhookChannels } from '../domain/webhook/webhook-channels.js';
import type { FirstStartUnit } from '../domain/account-rows.js';
import type { AlertGroupWrites } from '../domain/alert-groups.js';
import type { AlertStore } from '../domain/alert-store.js';
import type { AppSecretRows } from '../domain/auth/app-secrets.js';
import type { AuditRows } from '../domain/auth/audit.js';
import type { InvitationRows } from '../domain/auth/invitations.js';
import type { PasswordRows } from '../domain/auth/passwords.js';
import type { SessionRows } from '../domain/auth/sessions.js';
import type { SignInLinkRows } from '../domain/auth/sign-in-links.js';
import type { ChangeBus } from '../domain/changes.js';
import type { IdempotencyClaims } from '../domain/idempotency.js';
import type { BatchObserver } from '../db/shared/batch-observer.js';
import type { Limiter } from '../domain/rate-limiter.js';
import type { ApiBudget } from '../domain/tokens.js';
import type { Leadership } from '../lib/singletons.js';
import type { UnitRecipientRule } from '../domain/notification-preferences.js';
import type { PushOutbox } from '../domain/push-outbox.js';

/** The dashboard's auth rows (sessions, sign-in links, passwords, audit log, invitations), on the engine services run on. */
export interface AuthRows {
  sessions: SessionRows;
  links: SignInLinkRows;
  passwords: PasswordRows;
  audit: AuditRows;
  invitations: InvitationRows;
}

/** Which rate limit a limiter counts: each has its own keys (the scope of the shared PostgreSQL table). */
export type LimiterScope = 'webhook' | 'api' | 'sign-in-email' | 'sign-in-address' | 'heartbeat';

/**
 * What differs between the engines: every row module, the alert store, the bus, the limiters and
 * the cluster's coordination. src/services/sqlite.ts builds it for the SQLite file (synchronously),
 * src/services/postgres.ts for PostgreSQL; src/services.ts builds the use cases on either.
 */
export interface EngineParts {
  engine: 'sqlite' | 'postgres';
  /**
   * The engine's statement executor: a row module written once (src/db/shared/) is built over it in
   * src/services.ts, so a new table's rows need no line here or in either engine's builder.
   */
  database: SqlExecutor;
  /**
   * Other processes write MEDIA_DIR too (every node of a cluster): a failed request then lists its files
   * for the orphan sweep instead of deleting them, as another node may be committing the same bytes.
   */
  sharedMediaDir: boolean;
  store: AlertStore & { readonly groups: AlertGroupWrites };
  /** The in-process wake-ups (on PostgreSQL also heard by the other nodes). */
  bus: ChangeBus;
  probe: DatabaseProbe;
  firstStart: FirstStartUnit;
  unitRecipients: UnitRecipientRule;
  /** Read synchronously by the use cases built at start (on PostgreSQL loaded before: loadAppSecrets). */
  appSecrets: AppSecretRows;
  pushOutbox: PushOutbox;
  webhookChannels: WebhookChannels;
  limiter(scope: LimiterScope, perMinute: number): Limiter;
  /** The read API's budget with a token look-up that counts in the same statement (PostgreSQL); absent: the "api" limiter alone. */
  apiBudget?(perMinute: number): ApiBudget;
  /** In flight Idempotency-Keys; undefined: this process's own set (SQLite). */
  idempotencyClaims?: IdempotencyClaims;
  /** The group commit's observer slot (SQLite's WriteBatcher, PostgreSQL's InsertBatcher), for storage health and metrics. */
  batcher?: { observer?: BatchObserver };
  /** Whether this node runs the singletons (one SQLite process always does). */
  leadership: Leadership;
  /** Flushes and closes what the engine holds (connections, the group commit). */
  close(): void | Promise<void>;
}
