import fs from 'node:fs';
import path from 'node:path';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { BackupResult } from './backup.js';
import { backupInChildProcess } from './backup-process.js';
import { isErrno } from './files.js';

/** alertbridge-2026-11-23T13-05-09-123Z.db: sorts by time as text. */
const BACKUP_NAME_RE = /^alertbridge-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.db$/;

export interface BackupSchedule {
  intervalMs: number;
  /** How many scheduled backups to keep; older ones are deleted after each new one. */
  keep: number;
  dir: string;
}

export interface BackupScheduler {
  name: 'backups';
  /** Takes one backup now and prunes; what the timer runs. */
  runOnce(): Promise<BackupResult>;
  /** Cancels the timer and waits for a backup in progress (so no temp file is left behind). */
  stop(): Promise<void>;
}

/**
 * Scheduled backups into `dir`. The first one is due one interval after the
 * newest backup already there (so frequent restarts do not postpone backups
 * forever), then every interval. A failed backup is logged and retried at the
 * next interval; it never stops the service.
 *
 * The copy and its check run in a child process (backup-process.ts), so the
 * service keeps answering while a large database is copied.
 */
export function startBackupScheduler(deps: { dbFile: string; clock: Clock; logger: Logger }, schedule: BackupSchedule): BackupScheduler {
  const { dbFile, clock, logger } = deps;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();

  const runOnce = async (): Promise<BackupResult> => {
    const name = `alertbridge-${new Date(clock.now()).toISOString().replace(/[:.]/g, '-')}.db`;
    const result = await backupInChildProcess(dbFile, path.join(schedule.dir, name));
    const pruned = prune(schedule.dir, schedule.keep);
    logger.info({ file: result.file, bytes: result.bytes, alerts: result.alerts, tookMs: result.tookMs, pruned }, 'scheduled backup written');
    return result;
  };

  const tick = () => {
    running = runOnce()
      .catch((err: unknown) => logger.error({ err, dir: schedule.dir }, 'scheduled backup failed'))
      .finally(() => arm(schedule.intervalMs));
  };
  const arm = (delayMs: number) => {
    if (stopped) return;
    // unref: a pending backup must not keep a stopping process alive.
    timer = setTimeout(tick, delayMs).unref();
  };

  removeLeftovers(schedule.dir);
  const newest = listBackups(schedule.dir).at(-1);
  const newestAt = newest ? fs.statSync(path.join(schedule.dir, newest)).mtimeMs : -Infinity;
  arm(Math.max(0, Math.min(schedule.intervalMs, newestAt + schedule.intervalMs - clock.now())));
  logger.info({ dir: schedule.dir, intervalMs: schedule.intervalMs, keep: schedule.keep }, 'scheduled backups on');

  return {
    name: 'backups',
    runOnce,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** Our scheduled backups in `dir`, oldest first (a hand-made file with another name is never touched). */
export function listBackups(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((n) => BACKUP_NAME_RE.test(n))
      .sort();
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return [];
    throw err;
  }
}

/** Temp files of a backup a crash interrupted (dot names, never listed as backups). */
function removeLeftovers(dir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return;
    throw err;
  }
  for (const name of names) if (/^\.alertbridge-.*\.tmp-/.test(name)) fs.rmSync(path.join(dir, name), { force: true });
}

function prune(dir: string, keep: number): string[] {
  const all = listBackups(dir);
  const old = all.slice(0, Math.max(0, all.length - keep));
  for (const name of old) fs.rmSync(path.join(dir, name), { force: true });
  return old;
}
