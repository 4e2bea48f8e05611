import type Database from 'better-sqlite3';
import type { AlertStore } from '../../domain/alert-store.js';
import type { WriteBatcher } from '../write-batcher.js';
import { SqliteAlertRemoval } from './alert-removal.js';
import { AttachmentRows } from './attachment-rows.js';
import { SqliteChangeLog } from './change-log.js';
import { SqliteChatWrites } from './chat-writes.js';
import { SqliteOutbox } from './outbox.js';
import { SqliteAlertReads } from './reads.js';
import { SqliteAlertRetention } from './retention.js';
import { SqliteAlertSearch } from './search.js';
import { SqliteWebhookWrites } from './webhook-writes.js';
import { SqliteAlertReports } from './reports.js';
import { SqliteChannelRemoval } from './channel-removal.js';

/**
 * The SQLite alert store: the one module that runs SQL against alerts, their
 * attachments, read state, the change log and the outbox. Each part is a small
 * class over prepared statements; this facade builds them over one connection
 * and the group-commit batcher, whose transaction every write joins.
 */
export class SqliteAlertStore implements AlertStore {
  readonly reads: SqliteAlertReads;
  readonly removal: SqliteAlertRemoval;
  readonly changes: SqliteChangeLog;
  readonly webhook: SqliteWebhookWrites;
  readonly chat: SqliteChatWrites;
  readonly outbox: SqliteOutbox;
  readonly retention: SqliteAlertRetention;
  readonly search: SqliteAlertSearch;
  readonly reports: SqliteAlertReports;
  readonly channels: SqliteChannelRemoval;
  private readonly referenced: Database.Statement<[string], number>;
  private readonly newestKey: Database.Statement<[], string | null>;

  constructor(sqlite: Database.Database, batcher: WriteBatcher) {
    this.reads = new SqliteAlertReads(sqlite);
    this.changes = new SqliteChangeLog(sqlite);
    const attachments = new AttachmentRows(sqlite);
    this.webhook = new SqliteWebhookWrites(sqlite, batcher, this.changes, attachments);
    this.chat = new SqliteChatWrites(sqlite, batcher, this.changes, attachments);
    this.outbox = new SqliteOutbox(sqlite);
    this.retention = new SqliteAlertRetention(sqlite, batcher, this.changes);
    this.search = new SqliteAlertSearch(sqlite);
    this.reports = new SqliteAlertReports(sqlite);
    this.channels = new SqliteChannelRemoval(sqlite, batcher);
    this.removal = new SqliteAlertRemoval(sqlite, batcher, this.changes, attachments);
    this.referenced = sqlite.prepare<[string], number>('SELECT 1 FROM alert_attachments WHERE media_key = ? LIMIT 1').pluck();
    // Index lookups only: the newest alert id, and the newest activity key of each channel.
    this.newestKey = sqlite
      .prepare<[], string | null>(
        `SELECT max(k) FROM (SELECT max(id) AS k FROM alerts
         UNION ALL SELECT (SELECT max(activity_key) FROM alerts a WHERE a.channel_id = c.id) FROM channels c)`,
      )
      .pluck();
  }

  /**
   * Synchronous on purpose: the media store calls it from its clean-up, which
   * runs right after a commit and must not interleave with another request's
   * writes. A PostgreSQL engine would answer it from a query made before.
   */
  isMediaReferenced(key: string): boolean {
    return this.referenced.get(key) !== undefined;
  }

  /** The newest alert id or activity key (start-up only: seeds the id generator so ids keep sorting after a restart). */
  newestAlertKey(): string | null {
    return this.newestKey.get() ?? null;
  }
}
