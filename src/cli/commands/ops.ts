import { ConfigError } from '../../config.js';
import { backupDatabase } from '../../ops/backup.js';
import { restoreDatabase } from '../../ops/restore.js';
import { collectStats } from '../../ops/stats.js';
import { defineCommand, type Command } from '../command.js';

/** Backup and size report (safe while the server runs), and restore (the service must be stopped). */
export const opsCommands: Command[] = [
  defineCommand({
    name: 'backup',
    summary: 'write a consistent copy of the database while the service runs (never overwrites; then rsync media/)',
    flags: { to: { type: 'string', value: 'FILE', required: true } },
    run: (ctx, f) => backupDatabase(ctx.sqliteFile('backup').sqlite, f.to),
  }),
  defineCommand({
    name: 'stats',
    summary: 'database and media bytes, alerts and media per workspace and channel',
    flags: {},
    run: async (ctx) => collectStats(ctx.sqliteFile('stats').sqlite, await ctx.alertReports(), { dbFile: ctx.config.dbFile, mediaDir: ctx.config.mediaDir }),
  }),
  defineCommand({
    name: 'restore',
    summary: 'stop the service first; verify a backup and put it in place (keeps the old file as .before-restore-<time>)',
    flags: { from: { type: 'string', value: 'FILE', required: true } },
    // Never ctx.sqliteFile(): opening the database would create an empty one in an empty DATA_DIR and hold the very lock restore checks for.
    run: (ctx, f) => {
      if (ctx.config.databaseUrl) throw new ConfigError('`restore` puts a SQLite backup in place; DATABASE_URL is set (PostgreSQL): restore with PostgreSQL\'s own tools, or `admin import` into an empty database');
      return restoreDatabase(ctx.config.dbFile, f.from);
    },
  }),
];
