import type Database from 'better-sqlite3';
import type { SqliteExecutor } from '../executor.js';
import type { WriteBatcher } from '../write-batcher.js';
import type { AttachmentRows } from './attachment-rows.js';
import type { ChannelTally } from './channel-tally.js';
import type { SqliteChangeLog } from './change-log.js';
import type { SearchIndexer } from './search-indexer.js';
import type { UsageTally } from './usage-tally.js';

/**
 * What every SQLite alert writer works with, built once by SqliteAlertStore:
 * the connection its statements are prepared on, the group-commit batcher whose
 * unit each write runs in, and the row helpers those units share.
 */
export interface StoreWriteContext {
  sqlite: Database.Database;
  /** The shared statements (src/db/shared/), run synchronously inside the unit with its `…Now` methods. */
  database: SqliteExecutor;
  batcher: WriteBatcher;
  /** The change log: each unit records its stream event in the same transaction. */
  changes: SqliteChangeLog;
  attachments: AttachmentRows;
  /** New rows are indexed for search after the commit: scheduled by each insert (a timer, once per burst). */
  indexer: Pick<SearchIndexer, 'schedule'>;
  /** Billable events, written once per batch (registered as the batcher's tail). */
  usage: Pick<UsageTally, 'count'>;
  /** Each inserted or resurfaced alert's read-order number; channel_stats written once per batch (registered as the batcher's tail). */
  tally: Pick<ChannelTally, 'take' | 'giveBack' | 'pending'>;
}
