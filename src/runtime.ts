import { startAccountMailer } from './notify/account-mail-worker.js';
import { startNotifier } from './notify/outbox-worker.js';
import { startPushWorker } from './notify/push/start.js';
import { startBackupScheduler } from './ops/backup-scheduler.js';
import { startRetentionScheduler } from './ops/retention-scheduler.js';
import type { Services } from './services.js';

import type { BackgroundPart } from './lib/background-part.js';
import { whileLeader, type Leadership } from './lib/singletons.js';

export type { BackgroundPart } from './lib/background-part.js';

const MAINTENANCE_INTERVAL_MS = 10 * 60_000;
/** A temp file in a shared media directory younger than this may belong to another node's running upload. */
const SHARED_MEDIA_TEMP_GRACE_MS = 60 * 60_000;

/**
 * Starts everything that runs beside the HTTP server. Each part rebuilds its
 * state from the database at start (the database is the queue), so a restart
 * loses nothing. Returns one stop() that stops the parts in reverse order.
 * The singletons (maintenance, retention, the Discord gateway) run while this
 * node leads (src/lib/singletons.ts): always, for the one process on SQLite;
 * on PostgreSQL while this node holds the leader lock (`services.leadership`).
 */
export async function startBackground(s: Services, leadership: Leadership = s.leadership): Promise<{ parts: BackgroundPart[]; stop(): Promise<void> }> {
  const parts: BackgroundPart[] = [];
  /** A part only the leader runs (one process on SQLite always leads): started before this returns when this node leads. */
  const singleton = async (name: string, start: () => Promise<BackgroundPart | null> | BackgroundPart | null) => {
    const part = whileLeader(leadership, name, start, s.logger);
    parts.push(part);
    await part.settled;
  };

  // Temp files left by a crash mid-upload: never served (they do not match the key
  // pattern), removed here before any request can be writing new ones. On PostgreSQL the media
  // directory is shared by every node (NFS): a fresh temp file may be another node's upload in
  // progress, so only those older than any upload lasts go.
  const swept = await s.media.sweepTemp(s.engine === 'postgres' ? SHARED_MEDIA_TEMP_GRACE_MS : 0);
  if (swept) s.logger.info({ swept }, 'removed unfinished media uploads');

  const maintenance = async () => {
    try {
      const pruned = await s.maintenance();
      if (pruned.idempotencyKeys || pruned.events || pruned.orphanedMedia) s.logger.debug(pruned, 'pruned expired rows');
    } catch (err) {
      s.logger.error({ err }, 'maintenance failed');
    }
  };
  await singleton('maintenance', async () => {
    await maintenance();
    // Unreferenced files nothing listed (a crash right after a commit, a restored older database) start their grace period now.
    const strays = await s.mediaOrphans.adoptStrays();
    if (strays) s.logger.info({ strays }, 'unreferenced media files found; deleted after the grace period');
    const timer = setInterval(() => void maintenance(), MAINTENANCE_INTERVAL_MS).unref();
    return { name: 'maintenance', stop: () => clearInterval(timer) };
  });

  // Backups copy the SQLite file; on PostgreSQL the database server is backed up with its own tools.
  if (s.config.backupIntervalMs > 0 && s.engine === 'sqlite') {
    const { backupIntervalMs: intervalMs, backupKeep: keep, backupDir: dir } = s.config;
    parts.push(startBackupScheduler({ dbFile: s.config.dbFile, clock: s.clock, logger: s.logger }, { intervalMs, keep, dir }));
  } else if (s.config.backupIntervalMs > 0) {
    s.logger.warn('BACKUP_INTERVAL_HOURS is ignored on PostgreSQL: back the database up with its own tools (pg_dump, pg_basebackup)');
  }

  // Retention: batches of deletes between other writes (README: Operations, Retention).
  await singleton('retention', () => startRetentionScheduler(s.retention, s.logger, s.config.retentionIntervalMs));

  // E-mail delivery from the outbox (or "e-mail off" when SMTP_URL is unset).
  // Every node runs both workers on PostgreSQL (each row is claimed by one node); a node that died mid-send
  // is not the one that restarts there, so its rows are recovered after their send lease at every prune.
  const recoverEachPrune = s.engine === 'postgres';
  parts.push(startNotifier(s, { onOutcome: (o) => s.ops.metrics?.delivery(o), recoverEachPrune }));
  // Sign-in links and address confirmations, from their own outbox (only with SMTP_URL: without it nothing is queued).
  const accountMailer = startAccountMailer(s, { recoverEachPrune });
  if (accountMailer) parts.push(accountMailer);
  // Web Push from the same outbox (README: Web Push).
  parts.push(startPushWorker(s, { onOutcome: (o) => s.ops.metrics?.push(o), recoverEachPrune }));

  if (s.config.discordToken) {
    // One gateway connection per bot token: the leader's.
    await singleton('discord', async () => {
      // A refused token or intent is logged with advice; the HTTP service keeps running without the bridge.
      try {
        // Imported only here: discord.js costs ~44 MB of RSS, which a service without Discord does not pay.
        const { startDiscordBridge } = await import('./discord/index.js');
        const bridge = await startDiscordBridge(s);
        s.ops.attachDiscord(bridge);
        return {
          name: 'discord',
          stop: () => {
            s.ops.attachDiscord(null);
            return bridge.stop();
          },
        };
      } catch (err) {
        s.logger.error({ err }, (err as Error).message);
        return null;
      }
    });
  } else {
    s.logger.info('Discord bridge off: set DISCORD_TOKEN to connect a server');
  }

  return {
    parts,
    async stop() {
      for (const p of [...parts].reverse()) {
        try {
          await p.stop();
        } catch (err) {
          s.logger.error({ err, part: p.name }, 'stop failed');
        }
      }
    },
  };
}
