import { SqliteAlertStore } from '../db/sqlite/alert-store/index.js';
import { openDb, type Db } from '../db/sqlite/connection.js';
import { SqliteProbe } from '../db/sqlite/probe.js';
import { SqlPushOutbox } from '../db/shared/push-outbox.js';
import { SqliteAppSecretRows } from '../db/sqlite/app-secret-rows.js';
import { SqliteExecutor } from '../db/sqlite/executor.js';
import { SqliteFirstStart } from '../db/sqlite/first-start.js';
import { SqliteUnitRecipients } from '../db/sqlite/unit-recipients.js';
import { SqliteWebhookChannels } from '../db/sqlite/webhook-channels.js';
import { WriteBatcher } from '../db/sqlite/write-batcher.js';
import { ChangeBus } from '../domain/changes.js';
import type { Clock } from '../lib/clock.js';
import { RateLimiter } from '../domain/rate-limiter.js';
import { soleNode } from '../lib/singletons.js';
import type { EngineParts } from './engine.js';

/** The SQLite engine's parts also expose the file's handle and its group commit (tests, the CLI, backups). */
export interface SqliteParts extends EngineParts {
  engine: 'sqlite';
  db: Db;
  batcher: WriteBatcher;
  store: SqliteAlertStore;
  webhookChannels: SqliteWebhookChannels;
  close(): void;
}

/** One process on one SQLite file: everything in this process, built synchronously. */
export function sqliteParts(dbFile: string, clock: Clock): SqliteParts {
  const db = openDb(dbFile);
  // The shared row modules' statements, prepared once on this connection.
  const database = new SqliteExecutor(db.sqlite);
  const batcher = new WriteBatcher(db.sqlite);
  const store = new SqliteAlertStore(db.sqlite, batcher);
  // Alerts a previous run stored but had not indexed for search yet (the store schedules the rest itself).
  store.searchIndexer.catchUp();
  return {
    engine: 'sqlite',
    database,
    sharedMediaDir: false,
    db,
    batcher,
    store,
    bus: new ChangeBus(),
    probe: new SqliteProbe(db.sqlite),
    firstStart: new SqliteFirstStart(db.sqlite),
    unitRecipients: new SqliteUnitRecipients(database),
    appSecrets: new SqliteAppSecretRows(database),
    pushOutbox: new SqlPushOutbox(database),
    webhookChannels: new SqliteWebhookChannels(database),
    limiter: (_scope, perMinute) => new RateLimiter(perMinute, clock),
    leadership: soleNode(),
    close: () => {
      batcher.flush();
      store.searchIndexer.stop();
      db.close();
    },
  };
}
