import fs from 'node:fs';
import path from 'node:path';
import { defineCommand, UsageError, type Command } from '../command.js';
import type { Config } from '../../config.js';
import type { TransferTarget } from '../../services/admin-transfer.js';

/**
 * Moving an installation between databases (docs/cluster.md): `export` writes
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
      const r = await ctx.exportInstallation(file);
      return { exported: file, from: { engine: r.engine, database: r.where }, rows: r.rows, tables: r.tables };
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
      const r = await ctx.importInstallation(file, targetOf(ctx.config, f['database-url']));
      return { imported: file, into: { engine: r.engine, database: r.where }, verified: true, rows: r.rows, tables: r.tables };
    },
  }),
];

/** The import's target from --database-url (default: DATABASE_URL, else the SQLite file in DATA_DIR). */
function targetOf(config: Config, flag: string | undefined): TransferTarget {
  const url = flag ?? config.databaseUrl;
  if (url === undefined) return { engine: 'sqlite', file: config.dbFile };
  if (/^postgres(ql)?:\/\/\S+$/.test(url)) return { engine: 'postgres', url };
  const sqlite = /^sqlite:(.+)$/.exec(url);
  if (sqlite) return { engine: 'sqlite', file: path.resolve(sqlite[1]!) };
  throw new UsageError('--database-url takes postgres://user@host:port/database or sqlite:PATH');
}
