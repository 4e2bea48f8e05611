import { ConfigError, type Config } from '../config.js';
import { openDb, type Db } from '../db/connection.js';
import { SqliteAlertReports } from '../db/alert-store/reports.js';
import { SqliteDiscordLinkRows } from '../db/discord-link-rows.js';
import { SqliteUsageRows } from '../db/usage-rows.js';
import { SqlitePreferenceRows } from '../db/preference-rows.js';
import { SqliteRetentionSettings } from '../db/retention-settings.js';
import { SqliteAlertStore } from '../db/alert-store/index.js';
import { WriteBatcher } from '../db/write-batcher.js';
import { Accounts } from '../domain/accounts.js';
import { SqliteAccountRows } from '../db/account-rows.js';
import { AlertDeletion } from '../domain/alert-deletion.js';
import { ChangeBus } from '../domain/changes.js';
import { MediaStore } from '../media/store.js';
import { MediaOrphans } from '../ops/media-orphans.js';
import { RetentionSettings } from '../domain/retention.js';
import type { AlertReports } from '../domain/alert-reports.js';
import { DiscordLinks } from '../domain/chat/links.js';
import { Usage } from '../domain/usage.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { IdGenerator } from '../lib/ids.js';
import { NotificationPreferences } from '../notify/preferences.js';

/**
 * The CLI's own wiring: only the use cases admin commands call, each built on first use.
 * It deliberately does not go through createServices, which loads the HTTP stack, the media
 * fetcher and the live streams: a command answers in a fraction of the time. Nothing here
 * opens the database before a command runs, so a usage error touches no file.
 */
export class CliContext {
  readonly clock: Clock = systemClock;
  private opened?: Db;
  private accountsInstance?: Accounts;

  constructor(readonly config: Config) {}

  /** Opens the database (applying pending migrations, as the server does) on first use. */
  db(): Db {
    // Only `export` and `import` run on PostgreSQL so far: any other command would silently use SQLite.
    if (this.config.databaseUrl) throw new ConfigError('DATABASE_URL is set: only `export` and `import` work on PostgreSQL so far (README "Running more than one node")');
    this.opened ??= openDb(this.config.dbFile);
    return this.opened;
  }

  accounts(): Accounts {
    // ids: workspace, user, channel and token ids only need to be unique, so no seeding from stored alerts.
    this.accountsInstance ??= new Accounts(new SqliteAccountRows(this.db()), new IdGenerator(() => this.clock.now()), this.clock, this.config.tokenPrefix);
    return this.accountsInstance;
  }

  usage(): Usage {
    return new Usage(new SqliteUsageRows(this.db().sqlite));
  }

  discordLinks(): DiscordLinks {
    return new DiscordLinks(new SqliteDiscordLinkRows(this.db().sqlite), this.accounts(), this.clock);
  }

  retentionSettings(): RetentionSettings {
    return new RetentionSettings(new SqliteRetentionSettings(this.db().sqlite), this.accounts());
  }

  /** The alert store's counting reads only: the CLI never writes alerts, so it needs no group commit. */
  alertReports(): AlertReports {
    return new SqliteAlertReports(this.db().sqlite);
  }

  /**
   * Deleting one alert: the store's own delete unit (change-log event included, so open streams drop it)
   * and the media grace period (the service's maintenance deletes the files later), as the dashboard does.
   */
  alertDeletion(): AlertDeletion {
    const sqlite = this.db().sqlite;
    const store = new SqliteAlertStore(sqlite, new WriteBatcher(sqlite));
    const media = new MediaStore({ dir: this.config.mediaDir, publicUrl: this.config.mediaPublicUrl });
    const orphans = new MediaOrphans(sqlite, media, this.clock, this.config.mediaOrphanGraceMs, (key) => store.isMediaReferenced(key));
    // No listener in this process: the running service's streams see the change-log row on their next poll.
    const bus = new ChangeBus();
    return new AlertDeletion({ reads: store.reads, removal: store.removal, clock: this.clock, bus, releaseMedia: (keys) => orphans.release(keys) });
  }

  notifyPreferences(): NotificationPreferences {
    return new NotificationPreferences(new SqlitePreferenceRows(this.db().sqlite), this.clock);
  }

  close(): void {
    this.opened?.close();
  }
}
