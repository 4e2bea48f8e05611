import {
  CHAT_CHANNEL_DEFAULT_LEVEL, DEFAULT_LEVEL, type NotifyLevel, type PreferenceRow, type PreferenceRows, type Recipient, type UnitRecipientRule,
} from '../../domain/notification-preferences.js';
import type { SqlExecutor, Step, TransactionSteps } from './executor.js';
import { statement } from './statement.js';
import { channelVisibleTo } from './visibility.js';

/** Members who can see channel :channelId; a stale channel-member row of a removed workspace member counts for nothing. */
const MEMBERS_WHO_SEE = `
  FROM channels c
  JOIN memberships m ON m.workspace_id = c.workspace_id
  JOIN users u ON u.id = m.user_id
  LEFT JOIN notification_preferences p ON p.user_id = u.id AND p.channel_id = c.id
  LEFT JOIN quiet_hours q ON q.user_id = u.id
  WHERE c.id = :channelId
    AND ${channelVisibleTo('u.id')}`;

const EFFECTIVE_LEVEL = `COALESCE(p.level, CASE WHEN EXISTS (SELECT 1 FROM discord_links dl WHERE dl.channel_id = c.id)
  THEN '${CHAT_CHANNEL_DEFAULT_LEVEL}' ELSE '${DEFAULT_LEVEL}' END)`;

/** With the person's quiet hours (src/domain/quiet-hours.ts: quietHoursOf), null when they have none. */
const RECIPIENT_SELECT = `SELECT u.id AS "userId", u.email, u.name, ${EFFECTIVE_LEVEL} AS level,
  q.time_zone AS "quietZone", q.start_minute AS "quietStart", q.end_minute AS "quietEnd", q.min_level AS "quietMinLevel" ${MEMBERS_WHO_SEE}`;

/** Everyone who gets a channel's notifications, in membership order (the SQLite outbox's synchronous rule reads it too). */
export const RECIPIENTS = statement<{ channelId: string }, Recipient>(`${RECIPIENT_SELECT} ORDER BY m.created_at, u.id`);

/** One user's recipient row, when the channel's rule lets them get its notifications. */
export const RECIPIENT = statement<{ channelId: string; userId: string }, Recipient>(`${RECIPIENT_SELECT} AND u.id = :userId`);

const UPSERT = statement<{ userId: string; channelId: string; level: NotifyLevel; now: number }>(
  `INSERT INTO notification_preferences (user_id, channel_id, level, updated_at) VALUES (:userId, :channelId, :level, :now)
   ON CONFLICT (user_id, channel_id) DO UPDATE SET level = excluded.level, updated_at = excluded.updated_at`,
);

// isPrivate as 0/1, as the port has it, on both engines.
const FOR_USER = statement<{ userId: string }, PreferenceRow>(
  `SELECT c.id AS "channelId", c.slug, c.name, c.workspace_id AS "workspaceId", w.name AS "workspaceName",
          CASE WHEN c.is_private THEN 1 ELSE 0 END AS "isPrivate", p.level AS stored, ${EFFECTIVE_LEVEL} AS level
   FROM channels c
   JOIN workspaces w ON w.id = c.workspace_id
   JOIN memberships m ON m.workspace_id = c.workspace_id AND m.user_id = :userId
   LEFT JOIN notification_preferences p ON p.user_id = :userId AND p.channel_id = c.id
   WHERE ${channelVisibleTo(':userId')}
   ORDER BY w.created_at, c.created_at, c.id`,
);

/** E-mail preferences and the recipient rule, on either engine. */
export class SqlPreferenceRows implements PreferenceRows {
  constructor(private readonly database: SqlExecutor) {}

  recipients(channelId: string): Promise<Recipient[]> {
    return this.database.all(RECIPIENTS, { channelId });
  }

  recipient(channelId: string, userId: string): Promise<Recipient | undefined> {
    return this.database.get(RECIPIENT, { channelId, userId });
  }

  async upsert(userId: string, channelId: string, level: NotifyLevel, now: number): Promise<void> {
    await this.database.run(UPSERT, { userId, channelId, level, now });
  }

  forUser(userId: string): Promise<PreferenceRow[]> {
    return this.database.all(FOR_USER, { userId });
  }
}

/**
 * The outbox's recipient rule inside a claim's transaction (UnitRecipientRule), for an engine whose
 * transactions await (PostgreSQL). The fan-out and the claims decide synchronously (they are written
 * for the SQLite group commit), so the claim reads the rule in its transaction first, then runs the
 * decision with `decideWithin`: the synchronous reads answer from what was just read, and only during
 * that call (no await runs between, so no other transaction's decision can see it). A read outside
 * one is a wiring error.
 */
export class LoadedUnitRecipients implements UnitRecipientRule {
  private current: { channelId: string; userId: string | null; rows: Recipient[] } | null = null;

  /** Reads the rule for the channel (for one user, when `userId` is given) as a step of `tx`, then runs `decide` against it. */
  *decideWithin<T>(tx: TransactionSteps, channelId: string, userId: string | null, decide: () => T): Step<T> {
    const rows = userId === null ? yield* tx.all(RECIPIENTS, { channelId }) : yield* tx.all(RECIPIENT, { channelId, userId });
    this.current = { channelId, userId, rows };
    try {
      return decide();
    } finally {
      this.current = null;
    }
  }

  recipientsInUnit(channelId: string): Recipient[] {
    const loaded = this.current;
    if (!loaded || loaded.channelId !== channelId || loaded.userId !== null) throw new Error(`recipients of ${channelId} read outside the outbox transaction that loaded them`);
    return loaded.rows;
  }

  recipientInUnit(channelId: string, userId: string): Recipient | undefined {
    const loaded = this.current;
    if (!loaded || loaded.channelId !== channelId || (loaded.userId !== null && loaded.userId !== userId)) {
      throw new Error(`recipient ${userId} of ${channelId} read outside the outbox transaction that loaded it`);
    }
    return loaded.rows.find((r) => r.userId === userId);
  }
}
