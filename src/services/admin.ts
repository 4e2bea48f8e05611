import { adminRowsOver, type AdminRows } from './admin-rows.js';
import { ConfigError, type Config } from '../config.js';
import { openDb, type Db } from '../db/sqlite/connection.js';
import { SqliteAlertStore } from '../db/sqlite/alert-store/index.js';
import { SqlMediaOrphanRows } from '../db/shared/media-orphan-rows.js';
import { Routes } from '../domain/routes/routes.js';
import { loadSecretBox } from '../lib/secret-box.js';
import { sendRouteTest } from '../notify/routes/route-sender.js';
import { createRouteTransport, type RouteTransport } from '../notify/routes/transport.js';
import { Silences } from '../domain/silences.js';
import { Escalations } from '../domain/escalation/escalations.js';
import { Heartbeats } from '../domain/heartbeats/heartbeats.js';
import { SqliteExecutor } from '../db/sqlite/executor.js';
import { WriteBatcher } from '../db/sqlite/write-batcher.js';
import { Accounts } from '../domain/accounts.js';
import { AlertDeletion } from '../domain/alert-deletion.js';
import { AlertActions } from '../domain/alert-actions.js';
import type { AlertReports } from '../domain/alert-reports.js';
import { AuditLog } from '../domain/auth/audit.js';
import { SingleSignOn } from '../domain/auth/sso/single-sign-on.js';
import { SignInLinks } from '../domain/auth/sign-in-links.js';
import { ChangeBus } from '../domain/changes.js';
import { DiscordLinks } from '../domain/chat/links.js';
import { RetentionSettings } from '../domain/retention.js';
import { Usage } from '../domain/usage.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { IdGenerator } from '../lib/ids.js';
import { MediaStore } from '../media/store.js';
import { NotificationPreferences } from '../domain/notification-preferences.js';
import { QuietHoursSettings } from '../domain/quiet-hours.js';
import { MediaOrphans } from '../ops/media-orphans.js';
import { exportConfigured, importInto, type TransferReport, type TransferTarget } from './admin-transfer.js';


/**
 * The composition root's lean slice for the admin CLI: the same use cases over the same row modules
 * as openServices (src/services.ts), but only those a command calls, each built on first use, on the
 * SQLite file or on PostgreSQL (DATABASE_URL). It builds no media fetcher, live streams, group commit
 * worker, LISTEN connection or leader lock: a command answers in a fraction of the time and never
 * takes a node's role. Nothing opens the database before a command asks for it, so a usage error
 * touches no file and no server.
 */
export class AdminServices {
  readonly clock: Clock = systemClock;
  private opened?: Db;
  private rowsOpening?: Promise<AdminRows>;
  private accountsInstance?: Accounts;
  /** Media releases still running when the command returns: close() waits for them. */
  private readonly releases: Promise<void>[] = [];
  private transport?: RouteTransport;

  constructor(readonly config: Config) {}

  /**
   * The SQLite file itself, for the commands that work on the file (backup, stats' file sizes).
   * On PostgreSQL they refuse (exit 2): the file is not the database there.
   */
  sqliteFile(command: string): Db {
    if (this.config.databaseUrl) {
      throw new ConfigError(`\`${command}\` works on the SQLite file only; DATABASE_URL is set (PostgreSQL): use PostgreSQL's own tools (pg_dump, pg_basebackup) and \`admin export\``);
    }
    return this.db();
  }

  private db(): Db {
    this.opened ??= openDb(this.config.dbFile);
    return this.opened;
  }

  /** Opens the database on first use (applying pending migrations, as the server does). */
  private rows(): Promise<AdminRows> {
    this.rowsOpening ??= this.config.databaseUrl ? this.pgRows(this.config.databaseUrl) : Promise.resolve(this.sqliteRows());
    return this.rowsOpening;
  }

  /** Each row module prepared when first used: a command prepares only its own statements. */
  private sqliteRows(): AdminRows {
    const db = this.db();
    const { sqlite } = db;
    const database = new SqliteExecutor(sqlite);
    // The CLI's one alert write (a delete) goes through the store's own unit, flushed at once.
    return adminRowsOver(
      database,
      () => {
        const store = new SqliteAlertStore(sqlite, new WriteBatcher(sqlite));
        return { reads: store.reads, removal: store.removal, lifecycle: store.lifecycle, isMediaReferenced: (key: string) => store.isMediaReferenced(key), orphans: new SqlMediaOrphanRows(database) };
      },
      () => db.close(),
    );
  }

  private async pgRows(url: string): Promise<AdminRows> {
    // Imported only on PostgreSQL: a command on the SQLite file does not load the driver.
    const { openPgAdminRows } = await import('./admin-pg.js');
    return openPgAdminRows(url);
  }

  async accounts(): Promise<Accounts> {
    const rows = await this.rows();
    // ids: workspace, user, channel and token ids only need to be unique, so no seeding from stored alerts.
    this.accountsInstance ??= new Accounts(rows.accounts, new IdGenerator(() => this.clock.now()), this.clock, this.config.tokenPrefix);
    return this.accountsInstance;
  }

  async usage(): Promise<Usage> {
    return new Usage((await this.rows()).usage);
  }

  async discordLinks(): Promise<DiscordLinks> {
    return new DiscordLinks((await this.rows()).discordLinks, await this.accounts(), this.clock);
  }

  async silences(): Promise<Silences> {
    return new Silences((await this.rows()).silences, await this.accounts(), new IdGenerator(() => this.clock.now()), this.clock);
  }

  async escalations(): Promise<Escalations> {
    return new Escalations((await this.rows()).escalations, await this.accounts(), this.clock);
  }

  /** Heartbeat checks (no timer here: the service's leader runs it). */
  async heartbeats(): Promise<Heartbeats> {
    return new Heartbeats((await this.rows()).heartbeats, new IdGenerator(() => this.clock.now()), this.clock);
  }

  async retentionSettings(): Promise<RetentionSettings> {
    return new RetentionSettings((await this.rows()).retention, await this.accounts());
  }

  /** The alert store's counting reads only. */
  async alertReports(): Promise<AlertReports> {
    return (await this.rows()).reports;
  }

  async signInLinks(): Promise<SignInLinks> {
    return new SignInLinks((await this.rows()).links, this.clock);
  }

  /** Group mappings and the break-glass owner (docs/sso.md). */
  async singleSignOn(): Promise<SingleSignOn> {
    return new SingleSignOn((await this.rows()).sso, await this.accounts(), await this.auditLog(), this.clock);
  }

  async auditLog(): Promise<AuditLog> {
    return new AuditLog((await this.rows()).audit, this.clock);
  }

  /**
   * Deleting one alert: the store's own delete unit (change-log event included, so open streams drop it)
   * and the media grace period (the service's maintenance deletes the files later), as the dashboard does.
   */
  async alertDeletion(): Promise<AlertDeletion> {
    const { alerts } = await this.rows();
    const media = new MediaStore({ dir: this.config.mediaDir, publicUrl: this.config.mediaPublicUrl });
    const orphans = new MediaOrphans(alerts.orphans, media, this.clock, this.config.mediaOrphanGraceMs, alerts.isMediaReferenced);
    // No listener in this process: the running service's streams see the change-log row on their next poll.
    const bus = new ChangeBus();
    return new AlertDeletion({ reads: alerts.reads, removal: alerts.removal, clock: this.clock, bus, releaseMedia: (keys) => void this.releases.push(orphans.release(keys)) });
  }

  /**
   * Routes, with the key box of the service (SECRETS_KEY or DATA_DIR/secrets.key, created here on the
   * first `route create` as the service would) and, for `route test`, the SSRF-guarded transport.
   */
  async routes(): Promise<Routes> {
    const rows = await this.rows();
    const accounts = await this.accounts();
    const box = loadSecretBox({ secretsKey: this.config.secretsKey, dataDir: this.config.dataDir, create: true });
    const ids = new IdGenerator(() => this.clock.now());
    return new Routes(rows.routes, box, ids, this.clock, this.config.routesAllowPrivate, async (route, target) => {
      this.transport ??= createRouteTransport({ allowPrivate: this.config.routesAllowPrivate, now: () => this.clock.now() });
      const channelName = (await accounts.requireChannel(route.channelId)).name;
      return sendRouteTest(this.transport, { route, target, channelName, publicUrl: this.config.publicUrl, now: this.clock.now() });
    });
  }

  /** Acknowledge, resolve, reopen and snooze as a named person (`alert ack --as EMAIL`), recorded as "via cli". */
  async alertActions(): Promise<{ actions: AlertActions; memberOf: (channelId: string, userId: string) => Promise<string | undefined> }> {
    const { alerts, accounts } = await this.rows();
    // No listener in this process: the running service's streams see the change-log row on their next poll.
    const actions = new AlertActions({
      reads: alerts.reads,
      lifecycle: alerts.lifecycle,
      userName: async (userId) => (await accounts.user(userId))?.name,
      clock: this.clock,
      bus: new ChangeBus(),
    });
    const memberOf = async (channelId: string, userId: string) => {
      const [channel] = await accounts.channelsByRef(channelId);
      return channel && (await accounts.role(channel.workspaceId, userId)) ? channel.workspaceId : undefined;
    };
    return { actions, memberOf };
  }

  async notifyPreferences(): Promise<NotificationPreferences> {
    return new NotificationPreferences((await this.rows()).preferences, this.clock);
  }

  async quietHours(): Promise<QuietHoursSettings> {
    return new QuietHoursSettings((await this.rows()).quietHours, this.clock);
  }

  /** `admin export`: every table of the configured database into a new file (src/services/admin-transfer.ts). */
  exportInstallation(file: string): Promise<TransferReport> {
    return exportConfigured(this.config, file);
  }

  /** `admin import`: an export into an empty database, verified against the file's counts and checksums. */
  importInstallation(file: string, target: TransferTarget): Promise<TransferReport> {
    return importInto(file, target);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.releases);
    await this.transport?.close();
    if (this.rowsOpening) await (await this.rowsOpening.catch(() => null))?.close();
    else this.opened?.close();
  }
}
