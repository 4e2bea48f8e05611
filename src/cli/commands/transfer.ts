import fs from 'node:fs';
import path from 'node:path';
import { defineCommand, UsageError, type Command } from '../command.js';
import type { AdminServices } from '../../services/admin.js';
import type { TransferEngine } from '../../db/transfer/engine.js';
import { PgTransferEngine } from '../../db/transfer/pg-engine.js';
import { SqliteTransferEngine } from '../../db/transfer/sqlite-engine.js';
import { exportInstallation, importInstallation } from '../../db/transfer/transfer.js';

/**
 * Moving an installation between databases (README "Running more than one node"): `export` writes
 * every table of the configured database (DATABASE_URL, else the SQLite file in DATA_DIR) to a file;
 * `import` loads such a file into an empty database, SQLite or PostgreSQL, and checks it.
 */
export const transferCommands: Command[] = [
  defineCommand({
    name: 'export',
    summary: 'write every table of the configured database (DATABASE_URL, else DATA_DIR) to a new NDJSON file, with per-table row counts and SHA-256 checksums',
    flags: { to: { type: 'string', value: 'FILE', required: true } },
    run: async (ctx, f) => {
      const file = path.resolve(f.to);
      if (fs.existsSync(file)) throw new UsageError(`${file} already exists: export never overwrites, choose a new name`);
      const source = ctx.config.databaseUrl ? await PgTransferEngine.open(ctx.config.databaseUrl) : SqliteTransferEngine.openExisting(ctx.config.dbFile);
      try {
        const r = await exportInstallation(source, file);
        return { exported: file, from: { engine: r.engine, database: r.where }, rows: r.rows, tables: r.tables };
      } finally {
        await source.close();
      }
    },
  }),
  defineCommand({
    name: 'import',
    summary:
      'load an export into an EMPTY database (--database-url postgres://… or sqlite:PATH; default: DATABASE_URL, else DATA_DIR), in one transaction verified against the file\'s counts and checksums',
    flags: { from: { type: 'string', value: 'FILE', required: true }, 'database-url': { type: 'string', value: 'URL' } },
    run: async (ctx, f) => {
      const file = path.resolve(f.from);
      if (!fs.existsSync(file)) throw new UsageError(`${file} does not exist`);
      const { engine: target, createdFile } = await openTarget(ctx, f['database-url']);
      let ok = false;
      try {
        const r = await importInstallation(file, target);
        ok = true;
        return { imported: file, into: { engine: r.engine, database: r.where }, verified: true, rows: r.rows, tables: r.tables };
      } finally {
        await target.close();
        // A SQLite file this command created for a failed import goes again: nothing half-made stays behind.
        if (!ok && createdFile) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(createdFile + suffix, { force: true });
      }
    },
  }),
];

async function openTarget(ctx: AdminServices, flag: string | undefined): Promise<{ engine: TransferEngine; createdFile?: string }> {
  const url = flag ?? ctx.config.databaseUrl;
  if (url === undefined) return sqliteTarget(ctx.config.dbFile);
  if (/^postgres(ql)?:\/\/\S+$/.test(url)) return { engine: await PgTransferEngine.open(url) };
  const sqlite = /^sqlite:(.+)$/.exec(url);
  if (sqlite) return sqliteTarget(path.resolve(sqlite[1]!));
  throw new UsageError('--database-url takes postgres://user@host:port/database or sqlite:PATH');
}

function sqliteTarget(file: string): { engine: TransferEngine; createdFile?: string } {
  const existed = fs.existsSync(file);
  return { engine: SqliteTransferEngine.openTarget(file), createdFile: existed ? undefined : file };
}
