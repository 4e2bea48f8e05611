import type pg from 'pg';
import {
  CHAT_CHANNEL_DEFAULT_LEVEL, DEFAULT_LEVEL, type NotifyLevel, type PreferenceRow, type PreferenceRows, type Recipient, type UnitRecipientRule,
} from '../../domain/notification-preferences.js';

/** The channel visibility rule of src/db/visibility.ts for a user expression (a boolean column here). */
const visibleTo = (userExpr: string) =>
  `(NOT c.is_private OR EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = ${userExpr}))`;

/** Members who can see channel `$1`; a stale channel-member row of a removed workspace member counts for nothing. */
const MEMBERS_WHO_SEE = `
  FROM channels c
  JOIN memberships m ON m.workspace_id = c.workspace_id
  JOIN users u ON u.id = m.user_id
  LEFT JOIN notification_preferences p ON p.user_id = u.id AND p.channel_id = c.id
  WHERE c.id = $1
    AND ${visibleTo('u.id')}`;

const EFFECTIVE_LEVEL = `COALESCE(p.level, CASE WHEN EXISTS (SELECT 1 FROM discord_links dl WHERE dl.channel_id = c.id)
  THEN '${CHAT_CHANNEL_DEFAULT_LEVEL}' ELSE '${DEFAULT_LEVEL}' END)`;

const RECIPIENT = `SELECT u.id AS "userId", u.email, u.name, ${EFFECTIVE_LEVEL} AS level ${MEMBERS_WHO_SEE}`;

/**
 * E-mail preferences and the recipient rule on PostgreSQL: the statements of src/db/preference-rows.ts,
 * with quoted aliases and the boolean `is_private` given back as 0/1 like SQLite's. The outbox's
 * in-unit read is PgUnitRecipients below, fed inside the outbox's own transactions.
 */
export class PgPreferenceRows implements PreferenceRows {
  constructor(private readonly pool: pg.Pool) {}

  async recipients(channelId: string): Promise<Recipient[]> {
    return recipientsVia(this.pool, channelId);
  }

  async recipient(channelId: string, userId: string): Promise<Recipient | undefined> {
    return (await recipientsVia(this.pool, channelId, userId))[0];
  }

  async upsert(userId: string, channelId: string, level: NotifyLevel, now: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO notification_preferences (user_id, channel_id, level, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (user_id, channel_id) DO UPDATE SET level = excluded.level, updated_at = excluded.updated_at`,
      [userId, channelId, level, now],
    );
  }

  async forUser(userId: string): Promise<PreferenceRow[]> {
    const { rows } = await this.pool.query<PreferenceRow>(
      `SELECT c.id AS "channelId", c.slug, c.name, c.workspace_id AS "workspaceId", w.name AS "workspaceName",
              c.is_private::int AS "isPrivate", p.level AS stored, ${EFFECTIVE_LEVEL} AS level
       FROM channels c
       JOIN workspaces w ON w.id = c.workspace_id
       JOIN memberships m ON m.workspace_id = c.workspace_id AND m.user_id = $1
       LEFT JOIN notification_preferences p ON p.user_id = $1 AND p.channel_id = c.id
       WHERE ${visibleTo('$1')}
       ORDER BY w.created_at, c.created_at, c.id`,
      [userId],
    );
    return rows;
  }
}

/** The recipient rule through a pool or a client inside a transaction: everyone, or one user. */
async function recipientsVia(q: Pick<pg.Pool, 'query'>, channelId: string, userId?: string): Promise<Recipient[]> {
  if (userId !== undefined) return (await q.query<Recipient>(`${RECIPIENT} AND u.id = $2`, [channelId, userId])).rows;
  return (await q.query<Recipient>(`${RECIPIENT} ORDER BY m.created_at, u.id`, [channelId])).rows;
}

/**
 * The outbox's recipient rule inside its PostgreSQL transactions (UnitRecipientRule). The fan-out
 * and the claims decide synchronously (they are written for the SQLite group commit), so the
 * outbox reads the rule in its transaction first, then runs the decision with `within`: the
 * synchronous reads answer from what was just read, and only during that call (no await runs
 * between, so no other transaction's decision can see it). A read outside one is a wiring error.
 */
export class PgUnitRecipients implements UnitRecipientRule {
  private current: { channelId: string; userId: string | null; rows: Recipient[] } | null = null;

  /** Reads the rule for the channel (for one user, when `userId` is given) through `tx`, then runs `decide` against it. */
  async within<T>(tx: Pick<pg.PoolClient, 'query'>, channelId: string, userId: string | null, decide: () => T): Promise<T> {
    const rows = await recipientsVia(tx, channelId, userId ?? undefined);
    this.current = { channelId, userId, rows };
    try {
      return decide();
    } finally {
      this.current = null;
    }
  }

  recipientsInUnit(channelId: string): Recipient[] {
    const c = this.current;
    if (!c || c.channelId !== channelId || c.userId !== null) throw new Error(`recipients of ${channelId} read outside the outbox transaction that loaded them`);
    return c.rows;
  }

  recipientInUnit(channelId: string, userId: string): Recipient | undefined {
    const c = this.current;
    if (!c || c.channelId !== channelId || (c.userId !== null && c.userId !== userId)) {
      throw new Error(`recipient ${userId} of ${channelId} read outside the outbox transaction that loaded it`);
    }
    return c.rows.find((r) => r.userId === userId);
  }
}
