import type { Config } from '../../config.js';
import { backupDatabase } from '../../ops/backup.js';
import { restoreDatabase } from '../../ops/restore.js';
import { collectStats } from '../../ops/stats.js';
import type { Command, Flags } from '../command.js';

/**
 * A command that must not open the database through the services: restore
 * replaces the file, and opening it first would both create an empty database
 * in an empty DATA_DIR and hold the very lock restore checks for.
 */
export interface OfflineCommand extends Omit<Command, 'run'> {
  offline: true;
  run(config: Config, flags: Flags): unknown;
}

/** Backup and size report: safe while the server runs. */
export const opsCommands: Command[] = [
  {
    name: 'backup',
    usage: '--to FILE',
    summary: 'write a consistent copy of the database while the service runs (never overwrites; then rsync media/)',
    run: (s, f) => backupDatabase(s.db.sqlite, f.require('to')),
  },
  {
    name: 'stats',
    usage: '',
    summary: 'database and media bytes, alerts and media per workspace and channel',
    run: (s) => collectStats(s.db.sqlite, { dbFile: s.config.dbFile, mediaDir: s.config.mediaDir }),
  },
];

/** Restore: the service must be stopped (refused while anything has the database open). */
export const offlineOpsCommands: OfflineCommand[] = [
  {
    name: 'restore',
    usage: '--from FILE',
    summary: 'stop the service first; verify a backup and put it in place (keeps the old file as .before-restore-<time>)',
    offline: true,
    run: (config, f) => restoreDatabase(config.dbFile, f.require('from')),
  },
];
