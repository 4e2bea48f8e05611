import type Database from 'better-sqlite3';
import type { AlertStore } from '../../../domain/alert-store.js';
import type { WriteBatcher } from '../write-batcher.js';
import { AttachmentRows } from './attachment-rows.js';
import { SqliteChangeLog } from './change-log.js';
import { SqliteChatWrites } from './chat-writes.js';
import { SqliteAlertRetention } from './retention.js';
import { SqliteAlertSearch } from './search.js';
import { SearchIndexer } from './search-indexer.js';
import { SqliteWebhookWrites } from './webhook-writes.js';
import { SqliteGroupWrites } from './group-writes.js';
import { UsageTally } from './usage-tally.js';
import { SqlAlertReads } from '../../shared/alert-reads.js';
import { SqlAlertReports } from '../../shared/alert-reports.js';
import { SqlOutbox } from '../../shared/outbox.js';
import { SqliteAlertPages } from '../alert-pages.js';
import { MEDIA_REFERENCED, NEWEST_ALERT_ID } from '../../shared/store-lookups.js';
import { SqliteExecutor } from '../executor.js';
import { ChannelTally } from './channel-tally.js';
import type { StoreWriteContext } from './write-context.js';
import { SqlAlertRemoval, SqlChannelRemoval } from '../../shared/alert-removal.js';
import { SqliteWriteUnits } from '../write-units.js';
import { SqlAlertLifecycle } from '../../shared/alert-lifecycle-rows.js';

/**
 * The SQLite alert store: the one module that runs SQL against alerts, their
 * attachments, read state, the change log and the outbox. Each part is a small
 * class over prepared statements; this facade builds them over one connection
 * and the group-commit batcher, whose transaction every write joins (the
 * writers get both, with the helpers their units share, as one StoreWriteContext).
 */
export class SqliteAlertStore implements AlertStore {
  readonly reads: SqlAlertReads;
  readonly removal: SqlAlertRemoval;
  readonly changes: SqliteChangeLog;
  readonly webhook: SqliteWebhookWrites;
  readonly lifecycle: SqlAlertLifecycle;
  /** Alertmanager/Grafana groups and GitHub job steps (src/domain/alert-groups.ts). */
  readonly groups: SqliteGroupWrites;
  readonly chat: SqliteChatWrites;
  readonly outbox: SqlOutbox;
  readonly retention: SqliteAlertRetention;
  readonly search: SqliteAlertSearch;
  /** Indexes new alerts for search after their commit (see search-indexer.ts); the inserting writers schedule it. */
  readonly searchIndexer: SearchIndexer;
  readonly reports: SqlAlertReports;
  readonly channels: SqlChannelRemoval;
  private readonly database: SqliteExecutor;

  constructor(sqlite: Database.Database, batcher: WriteBatcher) {
    const database = new SqliteExecutor(sqlite);
    this.database = database;
    this.reads = new SqlAlertReads(database, new SqliteAlertPages(sqlite));
    this.changes = new SqliteChangeLog(database);
    this.searchIndexer = new SearchIndexer(sqlite);
    const usage = new UsageTally(database);
    batcher.addTail(usage);
    const tally = new ChannelTally(sqlite);
    batcher.addTail(tally);
    const writes: StoreWriteContext = {
      sqlite, database, batcher, changes: this.changes, attachments: new AttachmentRows(sqlite), indexer: this.searchIndexer, usage, tally,
    };
    const units = new SqliteWriteUnits(writes);
    this.webhook = new SqliteWebhookWrites(writes, units);
    this.groups = new SqliteGroupWrites(writes, this.webhook);
    this.chat = new SqliteChatWrites(writes, units);
    this.outbox = new SqlOutbox(database);
    this.retention = new SqliteAlertRetention(writes, database);
    this.search = new SqliteAlertSearch(sqlite, this.searchIndexer);
    this.reports = new SqlAlertReports(database);
    this.channels = new SqlChannelRemoval(units);
    this.removal = new SqlAlertRemoval(units);
    this.lifecycle = new SqlAlertLifecycle(database, units);
  }

  /**
   * Synchronous on purpose: the media store calls it from its clean-up, which
   * runs right after a commit and must not interleave with another request's
   * writes. A PostgreSQL engine would answer it from a query made before.
   */
  isMediaReferenced(key: string): boolean {
    return this.database.getNow(MEDIA_REFERENCED, { key }) !== undefined;
  }

  /** The newest alert id (start-up only: seeds the id generator so ids keep sorting after a restart). */
  newestAlertKey(): string | null {
    // Activity keys are not compared any more (read state orders by alerts.seq), so only ids must keep sorting.
    return this.database.getNow(NEWEST_ALERT_ID, {})?.id ?? null;
  }
}
