import fs from 'node:fs';
import type { Config } from '../config.js';
import type { TransferEngine } from '../db/transfer/engine.js';
import { PgTransferEngine } from '../db/transfer/pg-engine.js';
import { SqliteTransferEngine } from '../db/transfer/sqlite-engine.js';
import { exportInstallation, importInstallation, type TransferReport } from '../db/transfer/transfer.js';

export type { TransferReport };

/** Where an import goes: a PostgreSQL database by URL, or a SQLite file (created when missing). */
export type TransferTarget = { engine: 'postgres'; url: string } | { engine: 'sqlite'; file: string };

/** Every table of the configured database (DATABASE_URL, else the SQLite file in DATA_DIR) into `file`, which must not exist. */
export async function exportConfigured(config: Config, file: string): Promise<TransferReport> {
  const source = config.databaseUrl ? await PgTransferEngine.open(config.databaseUrl) : SqliteTransferEngine.openExisting(config.dbFile);
  try {
    return await exportInstallation(source, file);
  } finally {
    await source.close();
  }
}

/** Loads an export into an empty database in one verified transaction. */
export async function importInto(file: string, target: TransferTarget): Promise<TransferReport> {
  const { engine, createdFile } = await openTarget(target);
  let ok = false;
  try {
    const report = await importInstallation(file, engine);
    ok = true;
    return report;
  } finally {
    await engine.close();
    // A SQLite file this import created goes again when it fails: nothing half-made stays behind.
    if (!ok && createdFile) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(createdFile + suffix, { force: true });
  }
}

async function openTarget(target: TransferTarget): Promise<{ engine: TransferEngine; createdFile?: string }> {
  if (target.engine === 'postgres') return { engine: await PgTransferEngine.open(target.url) };
  const existed = fs.existsSync(target.file);
  return { engine: SqliteTransferEngine.openTarget(target.file), createdFile: existed ? undefined : target.file };
}
