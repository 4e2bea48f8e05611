import { startAccountMailer } from './notify/account-mail-worker.js';
import { startNotifier } from './notify/outbox-worker.js';
import { startPushWorker } from './notify/push/start.js';
import { startRouteWorker } from './notify/routes/start.js';
import { startEscalationScheduler } from './notify/escalation-scheduler.js';
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
export async function startBackground(services: Services, leadership: Leadership = services.leadership): Promise<{ parts: BackgroundPart[]; stop(): Promise<void> }> {
  const parts: BackgroundPart[] = [];
  /** A part only the leader runs (one process on SQLite always leads): started before this returns when this node leads. */
  const singleton = async (name: string, start: () => Promise<BackgroundPart | null> | BackgroundPart | null) => {
    const part = whileLeader(leadership, name, start, services.logger);
    parts.push(part);
    await part.settled;
  };

  // Temp files left by a crash mid-upload: never served (they do not match the key
  // pattern), removed here before any request can be writing new ones. On PostgreSQL the media
  // directory is shared by every node (NFS): a fresh temp file may be another node's upload in
  // progress, so only those older than any upload lasts go.
  const swept = await services.media.sweepTemp(services.engine === 'postgres' ? SHARED_MEDIA_TEMP_GRACE_MS : 0);
  if (swept) services.logger.info({ swept }, 'removed unfinished media uploads');

  const maintenance = async () => {
    try {
      const pruned = await services.maintenance();
      if (pruned.idempotencyKeys || pruned.events || pruned.orphanedMedia) services.logger.debug(pruned, 'pruned expired rows');
    } catch (err) {
      services.logger.error({ err }, 'maintenance failed');
    }
  };
  await singleton('maintenance', async () => {
    await maintenance();
    // Unreferenced files nothing listed (a crash right after a commit, a restored older database) start their grace period now.
    const strays = await services.mediaOrphans.adoptStrays();
    if (strays) services.logger.info({ strays }, 'unreferenced media files found; deleted after the grace period');
    const timer = setInterval(() => void maintenance(), MAINTENANCE_INTERVAL_MS).unref();
    return { name: 'maintenance', stop: () => clearInterval(timer) };
  });

  // Backups copy the SQLite file; on PostgreSQL the database server is backed up with its own tools.
  if (services.config.backupIntervalMs > 0 && services.engine === 'sqlite') {
    const { backupIntervalMs: intervalMs, backupKeep: keep, backupDir: dir } = services.config;
    parts.push(startBackupScheduler({ dbFile: services.config.dbFile, clock: services.clock, logger: services.logger }, { intervalMs, keep, dir }));
  } else if (services.config.backupIntervalMs > 0) {
    services.logger.warn('BACKUP_INTERVAL_HOURS is ignored on PostgreSQL: back the database up with its own tools (pg_dump, pg_basebackup)');
  }

  // Retention: batches of deletes between other writes (docs/operations.md "Retention").
  await singleton('retention', () => startRetentionScheduler(services.retention, services.logger, services.config.retentionIntervalMs));

  // Escalation steps (docs/handling-alerts.md "Escalation"): one node looks for due steps; the outbox delivers them.
  await singleton('escalation', () => startEscalationScheduler(services));
  // Heartbeat checks going down at their due time (docs/heartbeats.md): one timer, the leader's; its
  // first pass moves every check that fell overdue while no node ran it, each exactly once.
  await singleton('heartbeats', () => services.heartbeats.timer.start());

  // E-mail delivery from the outbox (or "e-mail off" when SMTP_URL is unset).
  // Every node runs both workers on PostgreSQL (each row is claimed by one node); a node that died mid-send
  // is not the one that restarts there, so its rows are recovered after their send lease at every prune.
  const recoverEachPrune = services.engine === 'postgres';
  parts.push(startNotifier(services, { onOutcome: (o) => services.ops.metrics?.delivery(o), recoverEachPrune }));
  // Sign-in links and address confirmations, from their own outbox (only with SMTP_URL: without it nothing is queued).
  const accountMailer = startAccountMailer(services, { recoverEachPrune });
  if (accountMailer) parts.push(accountMailer);
  // Web Push from the same outbox (README: Web Push).
  parts.push(startPushWorker(services, { onOutcome: (o) => services.ops.metrics?.push(o), recoverEachPrune }));
  // Outbound routes from their outbox (docs/routes.md); every node sends, each row is claimed by one.
  parts.push(startRouteWorker(services, { recoverEachPrune }));

  if (services.config.discordToken) {
    // One gateway connection per bot token: the leader's.
    await singleton('discord', async () => {
      // A refused token or intent is logged with advice; the HTTP service keeps running without the bridge.
      try {
        // Imported only here: discord.js costs ~44 MB of RSS, which a service without Discord does not pay.
        const { startDiscordBridge } = await import('./discord/index.js');
        const bridge = await startDiscordBridge(services);
        services.ops.attachDiscord(bridge);
        services.discordDirectory.attach(bridge);
        return {
          name: 'discord',
          stop: () => {
            services.ops.attachDiscord(null);
            services.discordDirectory.attach(null);
            return bridge.stop();
          },
        };
      } catch (err) {
        services.logger.error({ err }, (err as Error).message);
        return null;
      }
    });
  } else {
    services.logger.info('Discord bridge off: set DISCORD_TOKEN to connect a server');
  }

  return {
    parts,
    async stop() {
      for (const p of [...parts].reverse()) {
        try {
          await p.stop();
        } catch (err) {
          services.logger.error({ err, part: p.name }, 'stop failed');
        }
      }
    },
  };
}
