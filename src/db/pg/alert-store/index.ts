import type pg from 'pg';
import type { AlertStore } from '../../../domain/alert-store.js';
import type { LoadedUnitRecipients } from '../../shared/preference-rows.js';
import { SqlAlertRemoval, SqlChannelRemoval } from '../../shared/alert-removal.js';
import { PgChangeLog } from './change-log.js';
import { PgChatWrites } from './chat-writes.js';
import { PgGroupWrites } from './group-writes.js';
import { PgAlertRetention } from './retention.js';
import { PgAlertReads } from './reads.js';
import { PgAlertSearch } from './search.js';
import { PgWriteUnits } from './unit.js';
import { PgWebhookWrites } from './webhook-writes.js';
import { SqlAlertReports } from '../../shared/alert-reports.js';
import { SqlOutbox } from '../../shared/outbox.js';
import { MEDIA_REFERENCED, NEWEST_ALERT_ID } from '../../shared/store-lookups.js';
import { PgExecutor } from '../executor.js';
import { SqlAlertLifecycle } from '../../shared/alert-lifecycle-rows.js';

/**
 * The alert store on PostgreSQL: the same parts as SqliteAlertStore (src/db/sqlite/alert-store/index.ts),
 * each over the pool, each write one transaction that has committed when its promise resolves.
 * Built with `open`, which reads the newest alert id first (the id generator's seed).
 */
export class PgAlertStore implements AlertStore {
  readonly reads: PgAlertReads;
  readonly removal: SqlAlertRemoval;
  readonly changes: PgChangeLog;
  readonly webhook: PgWebhookWrites;
  readonly lifecycle: SqlAlertLifecycle;
  /** Alertmanager/Grafana groups and GitHub job steps (src/domain/alert-groups.ts). */
  readonly groups: PgGroupWrites;
  readonly chat: PgChatWrites;
  readonly outbox: SqlOutbox;
  readonly retention: PgAlertRetention;
  readonly search: PgAlertSearch;
  readonly reports: SqlAlertReports;
  readonly channels: SqlChannelRemoval;

  private readonly database: PgExecutor;

  private constructor(
    pool: pg.Pool,
    recipients: LoadedUnitRecipients,
    private readonly newestKey: string | null,
  ) {
    const database = new PgExecutor(pool);
    this.database = database;
    this.reads = new PgAlertReads(pool);
    const units = new PgWriteUnits(pool);
    this.removal = new SqlAlertRemoval(units);
    this.changes = new PgChangeLog(pool);
    this.webhook = new PgWebhookWrites(pool);
    this.groups = new PgGroupWrites(pool, this.webhook);
    this.chat = new PgChatWrites(pool);
    this.outbox = new SqlOutbox(database, { recipients });
    this.retention = new PgAlertRetention(pool);
    this.search = new PgAlertSearch(pool);
    this.reports = new SqlAlertReports(database);
    this.channels = new SqlChannelRemoval(units);
    this.lifecycle = new SqlAlertLifecycle(database, units);
  }

  /** `recipients`: the outbox's recipient rule, read inside its claim transactions. */
  static async open(pool: pg.Pool, recipients: LoadedUnitRecipients): Promise<PgAlertStore> {
    const newest = await new PgExecutor(pool).get(NEWEST_ALERT_ID, {});
    return new PgAlertStore(pool, recipients, newest?.id ?? null);
  }

  /** A query: whether any alert of any node still uses the key (the media store asks before it deletes). */
  async isMediaReferenced(key: string): Promise<boolean> {
    return (await this.database.get(MEDIA_REFERENCED, { key })) !== undefined;
  }

  /** The newest alert id when the store was opened (start-up only: seeds the id generator). */
  newestAlertKey(): string | null {
    return this.newestKey;
  }
}
