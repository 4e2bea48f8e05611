import type pg from 'pg';
import type { AccountRows, AccountUser, ChannelRecord, FirstStartUnit, Role, TokenRecord, UserRecord } from '../../domain/account-rows.js';
import { FIRST_START_LOCK } from '../shared/advisory-locks.js';
import { inTransaction } from './transaction.js';

/**
 * Whether `err` is PostgreSQL's unique violation (SQLSTATE 23505) on `constraint`, the index name
 * the driver reports. Another constraint (or another error) is not a clash: it propagates.
 */
function isUniqueViolation(err: unknown, constraint: string): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    if ('code' in e && e.code === '23505' && 'constraint' in e && e.constraint === constraint) return true;
  }
  return false;
}

/** The unique index over verified addresses only (src/db/pg/schema/accounts.ts). */
const VERIFIED_EMAIL_INDEX = 'users_verified_email_uq';
const USER_COLUMNS = 'id, email, name, email_verified AS "emailVerified"';
const CHANNEL_COLUMNS = `c.id, c.workspace_id AS "workspaceId", c.name, c.slug, c.icon, c.is_private AS "isPrivate", c.webhook_token AS "webhookToken"`;
const TOKEN_COLUMNS = `id, workspace_id AS "workspaceId", user_id AS "userId", name, hint, created_at AS "createdAt", last_used_at AS "lastUsedAt", revoked_at AS "revokedAt"`;

/**
 * Workspaces, users, memberships, channels and tokens on PostgreSQL: the same statements as the
 * SQLite rows (src/db/account-rows.ts). A unique-key clash (a slug or an address taken by another
 * node a moment ago) comes back as `'taken'`, as on SQLite, so the use case answers it the same way.
 */
export class PgAccountRows implements AccountRows {
  /** A pool, or one client inside a transaction (the first start's unit). */
  constructor(private readonly pool: pg.Pool | pg.PoolClient) {}

  async insertWorkspace(row: { id: string; name: string; createdAt: number }): Promise<void> {
    await this.pool.query('INSERT INTO workspaces (id, name, created_at) VALUES ($1, $2, $3)', [row.id, row.name, row.createdAt]);
  }

  async workspace(id: string): Promise<{ id: string; name: string } | undefined> {
    return (await this.pool.query<{ id: string; name: string }>('SELECT id, name FROM workspaces WHERE id = $1', [id])).rows[0];
  }

  async workspacesOf(userId: string): Promise<{ id: string; name: string; role: Role }[]> {
    const { rows } = await this.pool.query<{ id: string; name: string; role: Role }>(
      'SELECT w.id, w.name, m.role FROM memberships m JOIN workspaces w ON w.id = m.workspace_id WHERE m.user_id = $1 ORDER BY m.created_at, w.id',
      [userId],
    );
    return rows;
  }

  async insertUser(row: UserRecord & { createdAt: number; emailVerified: boolean }): Promise<'ok' | 'taken'> {
    try {
      await this.pool.query('INSERT INTO users (id, email, name, created_at, email_verified) VALUES ($1, $2, $3, $4, $5)', [
        row.id,
        row.email,
        row.name,
        row.createdAt,
        row.emailVerified,
      ]);
      return 'ok';
    } catch (err) {
      if (isUniqueViolation(err, VERIFIED_EMAIL_INDEX)) return 'taken';
      throw err;
    }
  }

  async user(idOrEmail: string): Promise<AccountUser | undefined> {
    // An address may be held unverified by several accounts besides its verified holder: that one comes first, then the oldest.
    const { rows } = await this.pool.query<AccountUser>(
      `SELECT ${USER_COLUMNS} FROM users WHERE id = $1 OR lower(email) = lower($1) ORDER BY email_verified DESC, created_at, id LIMIT 1`,
      [idOrEmail],
    );
    return rows[0];
  }

  async userByVerifiedEmail(email: string): Promise<AccountUser | undefined> {
    const { rows } = await this.pool.query<AccountUser>(`SELECT ${USER_COLUMNS} FROM users WHERE lower(email) = lower($1) AND email_verified`, [email]);
    return rows[0];
  }

  async renameUser(userId: string, name: string): Promise<void> {
    await this.pool.query('UPDATE users SET name = $1 WHERE id = $2', [name, userId]);
  }

  async changeEmail(userId: string, email: string, verified: boolean): Promise<boolean> {
    if (!verified) return (await this.pool.query('UPDATE users SET email = $1, email_verified = false WHERE id = $2', [email, userId])).rowCount === 1;
    try {
      const res = await this.pool.query(
        `UPDATE users SET email = $1, email_verified = true WHERE id = $2
           AND NOT EXISTS (SELECT 1 FROM users WHERE lower(email) = lower($1) AND email_verified AND id <> $2)`,
        [email, userId],
      );
      return res.rowCount === 1;
    } catch (err) {
      // Another node took the address between the check and the write: the unique index decides.
      if (isUniqueViolation(err, VERIFIED_EMAIL_INDEX)) return false;
      throw err;
    }
  }

  async role(workspaceId: string, userId: string): Promise<Role | undefined> {
    const { rows } = await this.pool.query<{ role: Role }>('SELECT role FROM memberships WHERE workspace_id = $1 AND user_id = $2', [workspaceId, userId]);
    return rows[0]?.role;
  }

  async upsertMembership(row: { workspaceId: string; userId: string; role: Role; createdAt: number }): Promise<void> {
    await this.pool.query(
      `INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = excluded.role`,
      [row.workspaceId, row.userId, row.role, row.createdAt],
    );
  }

  async removeMembership(workspaceId: string, userId: string): Promise<boolean> {
    // One statement, so one transaction: the membership and the private-channel memberships go together.
    const { rows } = await this.pool.query<{ removed: number }>(
      `WITH gone AS (DELETE FROM memberships WHERE workspace_id = $1 AND user_id = $2 RETURNING 1),
            dropped AS (DELETE FROM channel_members WHERE user_id = $2 AND EXISTS (SELECT 1 FROM gone)
                          AND channel_id IN (SELECT id FROM channels WHERE workspace_id = $1) RETURNING 1)
       SELECT (SELECT count(*) FROM gone)::int AS removed`,
      [workspaceId, userId],
    );
    return (rows[0]?.removed ?? 0) > 0;
  }

  async members(workspaceId: string): Promise<(UserRecord & { role: Role })[]> {
    const { rows } = await this.pool.query<UserRecord & { role: Role }>(
      'SELECT u.id, u.email, u.name, m.role FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = $1 ORDER BY m.created_at',
      [workspaceId],
    );
    return rows;
  }

  async insertChannel(row: ChannelRecord & { createdAt: number }): Promise<'ok' | 'taken'> {
    try {
      await this.pool.query(
        'INSERT INTO channels (id, workspace_id, name, slug, icon, is_private, webhook_token, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        [row.id, row.workspaceId, row.name, row.slug, row.icon, row.isPrivate, row.webhookToken, row.createdAt],
      );
      return 'ok';
    } catch (err) {
      if (isUniqueViolation(err, 'channels_ws_slug_uq')) return 'taken';
      throw err;
    }
  }

  async channelIdBySlug(workspaceId: string, slug: string): Promise<string | undefined> {
    return (await this.pool.query<{ id: string }>('SELECT id FROM channels WHERE workspace_id = $1 AND slug = $2', [workspaceId, slug])).rows[0]?.id;
  }

  async channelsByRef(ref: string, workspaceId?: string): Promise<ChannelRecord[]> {
    const { rows } = await this.pool.query<ChannelRecord>(
      `SELECT ${CHANNEL_COLUMNS} FROM channels c WHERE c.id = $1 OR (c.slug = $1 AND ($2::text IS NULL OR c.workspace_id = $2))`,
      [ref, workspaceId ?? null],
    );
    return rows;
  }

  async channelIdsOfUser(userId: string, ref: string): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string }>(
      'SELECT c.id FROM channels c JOIN memberships m ON m.workspace_id = c.workspace_id AND m.user_id = $1 WHERE c.id = $2 OR c.slug = $2',
      [userId, ref],
    );
    return rows.map((r) => r.id);
  }

  async channelInWorkspace(workspaceId: string, channelId: string): Promise<ChannelRecord | undefined> {
    const { rows } = await this.pool.query<ChannelRecord>(`SELECT ${CHANNEL_COLUMNS} FROM channels c WHERE c.id = $1 AND c.workspace_id = $2`, [channelId, workspaceId]);
    return rows[0];
  }

  async visibleChannels(workspaceId: string, userId: string): Promise<(ChannelRecord & { alertCount: number })[]> {
    const { rows } = await this.pool.query<ChannelRecord & { alertCount: number }>(
      `SELECT ${CHANNEL_COLUMNS}, coalesce((SELECT st.alert_count FROM channel_stats st WHERE st.channel_id = c.id), 0)::int AS "alertCount"
       FROM channels c WHERE c.workspace_id = $1
         AND (NOT c.is_private OR EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = $2))
       ORDER BY c.created_at, c.id`,
      [workspaceId, userId],
    );
    return rows;
  }

  async hasSigningSecret(channelId: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ secret: string | null }>('SELECT signing_secret AS secret FROM channels WHERE id = $1', [channelId]);
    return Boolean(rows[0]?.secret);
  }

  async updateChannel(channelId: string, change: { name?: string; icon?: string; webhookToken?: string; signingSecret?: string | null }): Promise<void> {
    const columns = [['name', change.name], ['icon', change.icon], ['webhook_token', change.webhookToken], ['signing_secret', change.signingSecret]] as const;
    const set: string[] = [];
    const values: (string | null)[] = [];
    for (const [column, v] of columns) {
      if (v === undefined) continue;
      values.push(v);
      set.push(`${column} = $${values.length}`);
    }
    if (set.length === 0) return;
    values.push(channelId);
    await this.pool.query(`UPDATE channels SET ${set.join(', ')} WHERE id = $${values.length}`, values);
  }

  async addChannelMember(row: { channelId: string; userId: string; createdAt: number }): Promise<void> {
    await this.pool.query('INSERT INTO channel_members (channel_id, user_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
      row.channelId,
      row.userId,
      row.createdAt,
    ]);
  }

  async removeChannelMember(channelId: string, userId: string): Promise<boolean> {
    const res = await this.pool.query('DELETE FROM channel_members WHERE channel_id = $1 AND user_id = $2', [channelId, userId]);
    return (res.rowCount ?? 0) > 0;
  }

  async channelMembers(channelId: string): Promise<UserRecord[]> {
    const { rows } = await this.pool.query<UserRecord>(
      'SELECT u.id, u.email, u.name FROM channel_members cm JOIN users u ON u.id = cm.user_id WHERE cm.channel_id = $1 ORDER BY cm.created_at',
      [channelId],
    );
    return rows;
  }

  async insertToken(row: Omit<TokenRecord, 'lastUsedAt' | 'revokedAt'> & { tokenHash: string }): Promise<void> {
    await this.pool.query(
      'INSERT INTO api_tokens (id, workspace_id, user_id, name, token_hash, hint, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [row.id, row.workspaceId, row.userId, row.name, row.tokenHash, row.hint, row.createdAt],
    );
  }

  async tokens(workspaceId: string): Promise<TokenRecord[]> {
    return (await this.pool.query<TokenRecord>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE workspace_id = $1 ORDER BY created_at`, [workspaceId])).rows;
  }

  async token(id: string): Promise<TokenRecord | undefined> {
    return (await this.pool.query<TokenRecord>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE id = $1`, [id])).rows[0];
  }

  async revokeToken(id: string, revokedAt: number): Promise<void> {
    await this.pool.query('UPDATE api_tokens SET revoked_at = $1 WHERE id = $2', [revokedAt, id]);
  }
}

/**
 * The first start on PostgreSQL: one transaction under a transaction-level advisory lock, so of
 * several nodes starting together on an empty database one sets it up and the others, waiting for
 * the lock, find a workspace and skip. The rows are bound to the transaction's client, so a failure
 * half-way leaves nothing.
 */
export class PgFirstStart implements FirstStartUnit {
  constructor(private readonly pool: pg.Pool) {}

  ifEmpty<T>(body: (rows: AccountRows) => Promise<T>): Promise<T | null> {
    return inTransaction(this.pool, async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [FIRST_START_LOCK]);
      const { rows } = await tx.query('SELECT 1 FROM workspaces LIMIT 1');
      return rows.length > 0 ? null : body(new PgAccountRows(tx));
    });
  }
}
