import { and, asc, eq } from 'drizzle-orm';
import type { AccountRows, ChannelRecord, FirstStartUnit, Role, TokenRecord, UserRecord } from '../domain/account-rows.js';
import type { Db } from './connection.js';
import { apiTokens, channelMembers, channels, memberships, users, workspaces } from './schema/index.js';

/**
 * Whether `err` is SQLite's unique-constraint failure on `constraint` (its wording: the indexed columns
 * "table.col, table.col", or "index 'name'" for an expression index). The cause is looked at too, in case
 * a layer wraps the driver error.
 */
function isUniqueViolation(err: unknown, constraint: string): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    if ('code' in e && e.code === 'SQLITE_CONSTRAINT_UNIQUE' && e.message.includes(constraint)) return true;
  }
  return false;
}

/** Runs an insert whose only expected refusal is `constraint` (a name or address in use): that one answers 'taken'. */
function insertUnlessTaken(insert: () => void, constraint: string): 'ok' | 'taken' {
  try {
    insert();
    return 'ok';
  } catch (err) {
    if (isUniqueViolation(err, constraint)) return 'taken';
    throw err;
  }
}

const CHANNEL_COLUMNS = `c.id, c.workspace_id AS workspaceId, c.name, c.slug, c.icon, c.is_private AS isPrivate, c.webhook_token AS webhookToken`;
type ChannelSqlRow = Omit<ChannelRecord, 'isPrivate'> & { isPrivate: number };
const toChannel = <T extends ChannelSqlRow>(r: T): Omit<T, 'isPrivate'> & { isPrivate: boolean } => ({ ...r, isPrivate: r.isPrivate === 1 });

/**
 * Workspaces, users, memberships, channels and tokens in SQLite: drizzle for
 * single-table statements, prepared SQL where a statement joins. Not a hot path.
 * Synchronous inside (better-sqlite3); the methods are async only to share the Promise
 * seam with the PostgreSQL rows (src/db/pg/account-rows.ts).
 */
export class SqliteAccountRows implements AccountRows {
  private readonly s;

  constructor(private readonly db: Db) {
    const sqlite = db.sqlite;
    this.s = {
      user: sqlite.prepare<[string, string], UserRecord>('SELECT id, email, name FROM users WHERE id = ? OR lower(email) = lower(?)'),
      accountForInvitation: sqlite.prepare<[string], UserRecord>('SELECT id, email, name FROM users WHERE lower(email) = lower(?)'),
      changeEmail: sqlite.prepare<[string, string, string, string]>(
        'UPDATE users SET email = ? WHERE id = ? AND NOT EXISTS (SELECT 1 FROM users WHERE lower(email) = lower(?) AND id <> ?)',
      ),
      workspacesOf: sqlite.prepare<[string], { id: string; name: string; role: Role }>(
        `SELECT w.id, w.name, m.role FROM memberships m JOIN workspaces w ON w.id = m.workspace_id WHERE m.user_id = ? ORDER BY m.created_at, w.id`,
      ),
      members: sqlite.prepare<[string], UserRecord & { role: Role }>(
        `SELECT u.id, u.email, u.name, m.role FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = ? ORDER BY m.created_at`,
      ),
      dropPrivateMemberships: sqlite.prepare<[string, string]>(
        'DELETE FROM channel_members WHERE user_id = ? AND channel_id IN (SELECT id FROM channels WHERE workspace_id = ?)',
      ),
      channelsByRef: sqlite.prepare<[string, string, string | null, string | null], ChannelSqlRow>(
        `SELECT ${CHANNEL_COLUMNS} FROM channels c WHERE c.id = ? OR (c.slug = ? AND (? IS NULL OR c.workspace_id = ?))`,
      ),
      channelIdsOfUser: sqlite
        .prepare<[string, string, string], string>(
          `SELECT c.id FROM channels c JOIN memberships m ON m.workspace_id = c.workspace_id AND m.user_id = ? WHERE c.id = ? OR c.slug = ?`,
        )
        .pluck(),
      channelInWorkspace: sqlite.prepare<[string, string], ChannelSqlRow>(`SELECT ${CHANNEL_COLUMNS} FROM channels c WHERE c.id = ? AND c.workspace_id = ?`),
      visible: sqlite.prepare<[{ workspaceId: string; userId: string }], ChannelSqlRow & { alertCount: number }>(
        `SELECT ${CHANNEL_COLUMNS}, coalesce((SELECT st.alert_count FROM channel_stats st WHERE st.channel_id = c.id), 0) AS alertCount
         FROM channels c WHERE c.workspace_id = @workspaceId
           AND (c.is_private = 0 OR EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = @userId))
         ORDER BY c.created_at, c.id`,
      ),
      channelMembers: sqlite.prepare<[string], UserRecord>(
        'SELECT u.id, u.email, u.name FROM channel_members cm JOIN users u ON u.id = cm.user_id WHERE cm.channel_id = ? ORDER BY cm.created_at',
      ),
    };
  }

  async insertWorkspace(row: { id: string; name: string; createdAt: number }): Promise<void> {
    this.db.orm.insert(workspaces).values(row).run();
  }

  async workspace(id: string) {
    return this.db.orm.select({ id: workspaces.id, name: workspaces.name }).from(workspaces).where(eq(workspaces.id, id)).get();
  }

  async workspacesOf(userId: string) {
    return this.s.workspacesOf.all(userId);
  }

  async insertUser(row: UserRecord & { createdAt: number }): Promise<'ok' | 'taken'> {
    return insertUnlessTaken(() => this.db.orm.insert(users).values(row).run(), 'users_email_uq');
  }

  async user(idOrEmail: string) {
    return this.s.user.get(idOrEmail, idOrEmail);
  }

  async accountForInvitation(email: string) {
    return this.s.accountForInvitation.get(email);
  }

  async renameUser(userId: string, name: string): Promise<void> {
    this.db.orm.update(users).set({ name }).where(eq(users.id, userId)).run();
  }

  async changeEmail(userId: string, email: string): Promise<boolean> {
    return this.s.changeEmail.run(email, userId, email, userId).changes === 1;
  }

  async role(workspaceId: string, userId: string) {
    return this.db.orm
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)))
      .get()?.role;
  }

  async upsertMembership(row: { workspaceId: string; userId: string; role: Role; createdAt: number }): Promise<void> {
    this.db.orm
      .insert(memberships)
      .values(row)
      .onConflictDoUpdate({ target: [memberships.workspaceId, memberships.userId], set: { role: row.role } })
      .run();
  }

  async removeMembership(workspaceId: string, userId: string): Promise<boolean> {
    // One transaction: a half-done removal would let a later re-add restore private access.
    return this.db.sqlite.transaction(() => {
      const res = this.db.orm
        .delete(memberships)
        .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)))
        .run();
      if (res.changes === 0) return false;
      this.s.dropPrivateMemberships.run(userId, workspaceId);
      return true;
    })();
  }

  async members(workspaceId: string) {
    return this.s.members.all(workspaceId);
  }

  async insertChannel(row: ChannelRecord & { createdAt: number }): Promise<'ok' | 'taken'> {
    return insertUnlessTaken(() => this.db.orm.insert(channels).values(row).run(), 'channels.workspace_id, channels.slug');
  }

  async channelIdBySlug(workspaceId: string, slug: string) {
    return this.db.orm
      .select({ id: channels.id })
      .from(channels)
      .where(and(eq(channels.workspaceId, workspaceId), eq(channels.slug, slug)))
      .get()?.id;
  }

  async channelsByRef(ref: string, workspaceId?: string) {
    return this.s.channelsByRef.all(ref, ref, workspaceId ?? null, workspaceId ?? null).map(toChannel);
  }

  async channelIdsOfUser(userId: string, ref: string) {
    return this.s.channelIdsOfUser.all(userId, ref, ref);
  }

  async channelInWorkspace(workspaceId: string, channelId: string) {
    const r = this.s.channelInWorkspace.get(channelId, workspaceId);
    return r && toChannel(r);
  }

  async visibleChannels(workspaceId: string, userId: string) {
    return this.s.visible.all({ workspaceId, userId }).map(toChannel);
  }

  async hasSigningSecret(channelId: string): Promise<boolean> {
    const row = this.db.orm.select({ secret: channels.signingSecret }).from(channels).where(eq(channels.id, channelId)).get();
    return Boolean(row?.secret);
  }

  async updateChannel(channelId: string, change: { name?: string; icon?: string; webhookToken?: string; signingSecret?: string | null }): Promise<void> {
    const set = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
    if (Object.keys(set).length === 0) return;
    this.db.orm.update(channels).set(set).where(eq(channels.id, channelId)).run();
  }

  async addChannelMember(row: { channelId: string; userId: string; createdAt: number }): Promise<void> {
    this.db.orm.insert(channelMembers).values(row).onConflictDoNothing().run();
  }

  async removeChannelMember(channelId: string, userId: string): Promise<boolean> {
    return (
      this.db.orm
        .delete(channelMembers)
        .where(and(eq(channelMembers.channelId, channelId), eq(channelMembers.userId, userId)))
        .run().changes > 0
    );
  }

  async channelMembers(channelId: string) {
    return this.s.channelMembers.all(channelId);
  }

  async insertToken(row: Omit<TokenRecord, 'lastUsedAt' | 'revokedAt'> & { tokenHash: string }): Promise<void> {
    this.db.orm.insert(apiTokens).values(row).run();
  }

  async tokens(workspaceId: string): Promise<TokenRecord[]> {
    return this.db.orm.select(TOKEN_COLUMNS).from(apiTokens).where(eq(apiTokens.workspaceId, workspaceId)).orderBy(asc(apiTokens.createdAt)).all();
  }

  async token(id: string): Promise<TokenRecord | undefined> {
    return this.db.orm.select(TOKEN_COLUMNS).from(apiTokens).where(eq(apiTokens.id, id)).get();
  }

  async revokeToken(id: string, revokedAt: number): Promise<void> {
    this.db.orm.update(apiTokens).set({ revokedAt }).where(eq(apiTokens.id, id)).run();
  }
}

/** Every token column but the hash: nothing reads the hash back but the token look-up (src/db/token-rows.ts). */
const TOKEN_COLUMNS = {
  id: apiTokens.id,
  workspaceId: apiTokens.workspaceId,
  userId: apiTokens.userId,
  name: apiTokens.name,
  hint: apiTokens.hint,
  createdAt: apiTokens.createdAt,
  lastUsedAt: apiTokens.lastUsedAt,
  revokedAt: apiTokens.revokedAt,
};

/**
 * The first start on SQLite: BEGIN IMMEDIATE, so the emptiness check and the writes hold the write
 * lock together and two processes started on one data directory cannot both set it up. The account
 * rows return Promises, so the transaction is opened by hand around them; this runs at start-up,
 * before the process serves anything, so no other statement of the process lands inside it.
 */
export class SqliteFirstStart implements FirstStartUnit {
  constructor(private readonly db: Db) {}

  async ifEmpty<T>(body: (rows: AccountRows) => Promise<T>): Promise<T | null> {
    const sqlite = this.db.sqlite;
    sqlite.exec('BEGIN IMMEDIATE');
    try {
      const result = sqlite.prepare('SELECT 1 FROM workspaces LIMIT 1').get() ? null : await body(new SqliteAccountRows(this.db));
      sqlite.exec('COMMIT');
      return result;
    } catch (err) {
      if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
      throw err;
    }
  }
}
