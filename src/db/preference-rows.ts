import type Database from 'better-sqlite3';
import { channelVisibleTo } from './visibility.js';
import { CHAT_CHANNEL_DEFAULT_LEVEL, DEFAULT_LEVEL, type NotifyLevel, type PreferenceRow, type PreferenceRows, type Recipient, type UnitRecipientRule } from '../domain/notification-preferences.js';

/**
 * Who can see a channel, by the one visibility rule (src/db/visibility.ts): every workspace member for a public channel; for a private one the
 * explicit channel members who are STILL workspace members (a removed member's
 * stale channel row must not keep mail flowing).
 */
const MEMBERS_WHO_SEE = `
  FROM channels c
  JOIN memberships m ON m.workspace_id = c.workspace_id
  JOIN users u ON u.id = m.user_id
  LEFT JOIN notification_preferences p ON p.user_id = u.id AND p.channel_id = c.id
  WHERE c.id = @channelId
    AND ${channelVisibleTo('u.id')}`;

const EFFECTIVE_LEVEL = `COALESCE(p.level, CASE WHEN EXISTS (SELECT 1 FROM discord_links dl WHERE dl.channel_id = c.id)
  THEN '${CHAT_CHANNEL_DEFAULT_LEVEL}' ELSE '${DEFAULT_LEVEL}' END)`;

/** E-mail preferences and the recipient rule, in SQLite (the PostgreSQL twin: src/db/pg/preference-rows.ts). */
export class SqlitePreferenceRows implements PreferenceRows, UnitRecipientRule {
  private readonly s;

  constructor(sqlite: Database.Database) {
    this.s = {
      recipients: sqlite.prepare<[{ channelId: string }], Recipient>(
        `SELECT u.id AS userId, u.email, u.name, ${EFFECTIVE_LEVEL} AS level ${MEMBERS_WHO_SEE} ORDER BY m.created_at, u.id`,
      ),
      recipient: sqlite.prepare<[{ channelId: string; userId: string }], Recipient>(`SELECT u.id AS userId, u.email, u.name, ${EFFECTIVE_LEVEL} AS level ${MEMBERS_WHO_SEE} AND u.id = @userId`),
      upsert: sqlite.prepare<[string, string, NotifyLevel, number]>(
        `INSERT INTO notification_preferences (user_id, channel_id, level, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (user_id, channel_id) DO UPDATE SET level = excluded.level, updated_at = excluded.updated_at`,
      ),
      forUser: sqlite.prepare<[{ userId: string }], PreferenceRow>(
        `SELECT c.id AS channelId, c.slug, c.name, c.workspace_id AS workspaceId, w.name AS workspaceName,
                c.is_private AS isPrivate, p.level AS stored, ${EFFECTIVE_LEVEL} AS level
         FROM channels c
         JOIN workspaces w ON w.id = c.workspace_id
         JOIN memberships m ON m.workspace_id = c.workspace_id AND m.user_id = @userId
         LEFT JOIN notification_preferences p ON p.user_id = @userId AND p.channel_id = c.id
         WHERE ${channelVisibleTo('@userId')}
         ORDER BY w.created_at, c.created_at, c.id`,
      ),
    };
  }

  // Synchronous inside (better-sqlite3), Promises outside: the seam a PostgreSQL engine plugs into.
  recipients(channelId: string): Promise<Recipient[]> {
    return Promise.resolve(this.recipientsInUnit(channelId));
  }

  recipient(channelId: string, userId: string): Promise<Recipient | undefined> {
    return Promise.resolve(this.recipientInUnit(channelId, userId));
  }

  upsert(userId: string, channelId: string, level: NotifyLevel, now: number): Promise<void> {
    this.s.upsert.run(userId, channelId, level, now);
    return Promise.resolve();
  }

  forUser(userId: string): Promise<PreferenceRow[]> {
    return Promise.resolve(this.s.forUser.all({ userId }));
  }

  /** The outbox's store units read the rule synchronously, inside their own transaction (UnitRecipientRule). */
  recipientsInUnit(channelId: string): Recipient[] {
    return this.s.recipients.all({ channelId });
  }

  recipientInUnit(channelId: string, userId: string): Recipient | undefined {
    return this.s.recipient.get({ channelId, userId });
  }
}
