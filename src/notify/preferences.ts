import type Database from 'better-sqlite3';
import { AppError } from '../domain/errors.js';
import type { Clock } from '../lib/clock.js';
import { channelVisibleTo } from '../domain/visibility.js';

export const NOTIFY_LEVELS = ['all', 'important', 'none'] as const;
export type NotifyLevel = (typeof NOTIFY_LEVELS)[number];
export type AlertLevel = 'INFO' | 'SUCCESS' | 'WARNING' | 'ERROR';

/**
 * The default when a user has set nothing for a channel. `all` on a normal
 * channel: the spec says alert creation triggers e-mail, so a new member must
 * not have to opt in to be told about an outage, and the flood guard protects
 * the inbox from bursts. `none` on a chat-connected (Discord) channel: those
 * channels mirror a conversation, not alerts, and the spec ties e-mail to alerts
 * from the webhook; mailing every chat message to every member would be spam.
 */
export const DEFAULT_LEVEL: NotifyLevel = 'all';
export const CHAT_CHANNEL_DEFAULT_LEVEL: NotifyLevel = 'none';

/** `important` = warnings and errors only. */
export function levelAllows(pref: NotifyLevel, alertLevel: AlertLevel): boolean {
  if (pref === 'all') return true;
  if (pref === 'important') return alertLevel === 'WARNING' || alertLevel === 'ERROR';
  return false;
}

export interface Recipient {
  userId: string;
  email: string;
  name: string;
  /** The effective preference (stored, or the channel's default). */
  level: NotifyLevel;
}

/**
 * Who can see a channel, by the one visibility rule (src/domain/visibility.ts): every workspace member for a public channel; for a private one the
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

interface PreferenceRow {
  channelId: string;
  slug: string;
  name: string;
  workspaceId: string;
  workspaceName: string;
  isPrivate: number;
  stored: NotifyLevel | null;
  level: NotifyLevel;
}

/** Per-(user, channel) e-mail preferences and the recipient rule built on them. */
export class NotificationPreferences {
  private readonly s;

  constructor(
    sqlite: Database.Database,
    private readonly clock: Clock,
  ) {
    this.s = {
      recipients: sqlite.prepare<[{ channelId: string }], Recipient>(
        `SELECT u.id AS userId, u.email, u.name, ${EFFECTIVE_LEVEL} AS level ${MEMBERS_WHO_SEE} ORDER BY m.created_at, u.id`,
      ),
      recipient: sqlite.prepare<[{ channelId: string; userId: string }], Recipient>(`SELECT u.id AS userId, u.email, u.name, ${EFFECTIVE_LEVEL} AS level ${MEMBERS_WHO_SEE} AND u.id = @userId`),
      upsert: sqlite.prepare(
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

  /** Everyone who can see the channel, with their effective preference (not yet filtered by level). */
  recipients(channelId: string): Recipient[] {
    return this.s.recipients.all({ channelId });
  }

  /** The same rule for one user, re-checked at send time; undefined when they can no longer see the channel. */
  recipient(channelId: string, userId: string): Recipient | undefined {
    return this.s.recipient.get({ channelId, userId });
  }

  set(userId: string, channelId: string, level: NotifyLevel) {
    if (!NOTIFY_LEVELS.includes(level)) throw new AppError('invalid-body', `level must be one of ${NOTIFY_LEVELS.join(', ')}`);
    // A preference for a channel the user cannot see would be dead data and usually a typo.
    if (!this.recipient(channelId, userId)) {
      throw new AppError('not-found', `user ${userId} cannot see channel ${channelId} (not a workspace member, or not a member of the private channel)`);
    }
    this.s.upsert.run(userId, channelId, level, this.clock.now());
    return { userId, channelId, level };
  }

  /** Every channel the user can see, with the stored level or the default that applies. */
  list(userId: string) {
    return this.s.forUser.all({ userId }).map((r) => ({
      channelId: r.channelId,
      slug: r.slug,
      name: r.name,
      workspace: { id: r.workspaceId, name: r.workspaceName },
      isPrivate: Boolean(r.isPrivate),
      level: r.level,
      isDefault: r.stored === null,
    }));
  }
}
