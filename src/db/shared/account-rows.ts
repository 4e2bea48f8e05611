import type { AccountRows, AccountUser, ChannelRecord, Role, TokenRecord, UserRecord } from '../../domain/account-rows.js';
import { isUniqueClash } from './errors.js';
import type { SqlExecutor } from './executor.js';
import { statement } from './statement.js';

/** The unique index over verified addresses only (an expression index: both engines report its name). */
const VERIFIED_EMAIL_INDEX = 'users_verified_email_uq';
const CHANNEL_SLUG_INDEX = 'channels_ws_slug_uq';
const CHANNEL_SLUG_COLUMNS = 'channels.workspace_id, channels.slug';

const USER_COLUMNS = 'id, email, name, email_verified AS "emailVerified"';
const CHANNEL_COLUMNS = `c.id, c.workspace_id AS "workspaceId", c.name, c.slug, c.icon, c.is_private AS "isPrivate", c.webhook_token AS "webhookToken"`;
/** Every token column but the hash: nothing reads the hash back but the token look-up (src/db/shared/token-rows.ts). */
const TOKEN_COLUMNS = `id, workspace_id AS "workspaceId", user_id AS "userId", name, hint, created_at AS "createdAt", last_used_at AS "lastUsedAt", revoked_at AS "revokedAt", read_only AS "readOnly"`;

type WorkspaceRow = { id: string; name: string };
type MembershipRow = { workspaceId: string; userId: string; role: Role; createdAt: number };

const INSERT_WORKSPACE = statement<{ id: string; name: string; createdAt: number }>(
  'INSERT INTO workspaces (id, name, created_at) VALUES (:id, :name, :createdAt)',
);
const WORKSPACE = statement<{ id: string }, WorkspaceRow>('SELECT id, name FROM workspaces WHERE id = :id');
/** Whether any workspace exists: the first start's question (src/db/sqlite/first-start.ts, src/db/pg/first-start.ts). */
export const ANY_WORKSPACE = statement<Record<string, never>, { one: number }>('SELECT 1 AS one FROM workspaces LIMIT 1');
const WORKSPACES_OF = statement<{ userId: string }, WorkspaceRow & { role: Role }>(
  'SELECT w.id, w.name, m.role FROM memberships m JOIN workspaces w ON w.id = m.workspace_id WHERE m.user_id = :userId ORDER BY m.created_at, w.id',
);

const INSERT_USER = statement<UserRecord & { createdAt: number; emailVerified: boolean }>(
  'INSERT INTO users (id, email, name, created_at, email_verified) VALUES (:id, :email, :name, :createdAt, :emailVerified)',
);
// An address may be held unverified by several accounts besides its verified holder: that one comes first, then the oldest.
const USER = statement<{ idOrEmail: string }, AccountUser>(
  `SELECT ${USER_COLUMNS} FROM users WHERE id = :idOrEmail OR lower(email) = lower(:idOrEmail) ORDER BY email_verified DESC, created_at, id LIMIT 1`,
  { booleans: ['emailVerified'] },
);
const USER_BY_VERIFIED_EMAIL = statement<{ email: string }, AccountUser>(
  `SELECT ${USER_COLUMNS} FROM users WHERE lower(email) = lower(:email) AND email_verified = TRUE`,
  { booleans: ['emailVerified'] },
);
const RENAME_USER = statement<{ userId: string; name: string }>('UPDATE users SET name = :name WHERE id = :userId');
const CHANGE_EMAIL_UNVERIFIED = statement<{ userId: string; email: string }>('UPDATE users SET email = :email, email_verified = FALSE WHERE id = :userId');
const CHANGE_EMAIL_VERIFIED = statement<{ userId: string; email: string }>(
  `UPDATE users SET email = :email, email_verified = TRUE WHERE id = :userId
     AND NOT EXISTS (SELECT 1 FROM users WHERE lower(email) = lower(:email) AND email_verified = TRUE AND id <> :userId)`,
);

const ROLE = statement<{ workspaceId: string; userId: string }, { role: Role }>(
  'SELECT role FROM memberships WHERE workspace_id = :workspaceId AND user_id = :userId',
);
const UPSERT_MEMBERSHIP = statement<MembershipRow>(
  `INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES (:workspaceId, :userId, :role, :createdAt)
   ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = excluded.role`,
);
const REMOVE_MEMBERSHIP = statement<{ workspaceId: string; userId: string }>('DELETE FROM memberships WHERE workspace_id = :workspaceId AND user_id = :userId');
const DROP_PRIVATE_MEMBERSHIPS = statement<{ workspaceId: string; userId: string }>(
  'DELETE FROM channel_members WHERE user_id = :userId AND channel_id IN (SELECT id FROM channels WHERE workspace_id = :workspaceId)',
);
const MEMBERS = statement<{ workspaceId: string }, UserRecord & { role: Role }>(
  'SELECT u.id, u.email, u.name, m.role FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = :workspaceId ORDER BY m.created_at',
);

const INSERT_CHANNEL = statement<ChannelRecord & { createdAt: number }>(
  `INSERT INTO channels (id, workspace_id, name, slug, icon, is_private, webhook_token, created_at)
   VALUES (:id, :workspaceId, :name, :slug, :icon, :isPrivate, :webhookToken, :createdAt)`,
);
const CHANNEL_ID_BY_SLUG = statement<{ workspaceId: string; slug: string }, { id: string }>(
  'SELECT id FROM channels WHERE workspace_id = :workspaceId AND slug = :slug',
);
// The CAST types a NULL workspace for PostgreSQL.
const CHANNELS_BY_REF = statement<{ ref: string; workspaceId: string | null }, ChannelRecord>(
  `SELECT ${CHANNEL_COLUMNS} FROM channels c
   WHERE c.id = :ref OR (c.slug = :ref AND (CAST(:workspaceId AS TEXT) IS NULL OR c.workspace_id = :workspaceId))`,
  { booleans: ['isPrivate'] },
);
const CHANNEL_IDS_OF_USER = statement<{ userId: string; ref: string }, { id: string }>(
  'SELECT c.id FROM channels c JOIN memberships m ON m.workspace_id = c.workspace_id AND m.user_id = :userId WHERE c.id = :ref OR c.slug = :ref',
);
const CHANNEL_IN_WORKSPACE = statement<{ workspaceId: string; channelId: string }, ChannelRecord>(
  `SELECT ${CHANNEL_COLUMNS} FROM channels c WHERE c.id = :channelId AND c.workspace_id = :workspaceId`,
  { booleans: ['isPrivate'] },
);
const PRIVATE_CHANNELS = statement<{ workspaceId: string }, ChannelRecord>(
  `SELECT ${CHANNEL_COLUMNS} FROM channels c WHERE c.workspace_id = :workspaceId AND c.is_private ORDER BY c.name, c.id`,
  { booleans: ['isPrivate'] },
);
const VISIBLE_CHANNELS = statement<{ workspaceId: string; userId: string }, ChannelRecord & { alertCount: number }>(
  `SELECT ${CHANNEL_COLUMNS}, CAST(coalesce((SELECT st.alert_count FROM channel_stats st WHERE st.channel_id = c.id), 0) AS INTEGER) AS "alertCount"
   FROM channels c WHERE c.workspace_id = :workspaceId
     AND (NOT c.is_private OR EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = :userId))
   ORDER BY c.created_at, c.id`,
  { booleans: ['isPrivate'] },
);
const SIGNING_SECRET = statement<{ channelId: string }, { secret: string | null }>('SELECT signing_secret AS secret FROM channels WHERE id = :channelId');
/** A NULL leaves a column as it is; the signing secret (which may be cleared to NULL) says so with `changeSecret`. */
const UPDATE_CHANNEL = statement<{
  channelId: string;
  name: string | null;
  icon: string | null;
  webhookToken: string | null;
  changeSecret: number;
  signingSecret: string | null;
}>(
  `UPDATE channels SET name = coalesce(:name, name), icon = coalesce(:icon, icon), webhook_token = coalesce(:webhookToken, webhook_token),
     signing_secret = CASE WHEN :changeSecret = 1 THEN :signingSecret ELSE signing_secret END
   WHERE id = :channelId`,
);
const ADD_CHANNEL_MEMBER = statement<{ channelId: string; userId: string; createdAt: number }>(
  'INSERT INTO channel_members (channel_id, user_id, created_at) VALUES (:channelId, :userId, :createdAt) ON CONFLICT DO NOTHING',
);
const SET_PRIVATE = statement<{ channelId: string; isPrivate: boolean }>('UPDATE channels SET is_private = :isPrivate WHERE id = :channelId');
const CLEAR_CHANNEL_MEMBERS = statement<{ channelId: string }>('DELETE FROM channel_members WHERE channel_id = :channelId');
const REMOVE_CHANNEL_MEMBER = statement<{ channelId: string; userId: string }>('DELETE FROM channel_members WHERE channel_id = :channelId AND user_id = :userId');
const CHANNEL_MEMBERS = statement<{ channelId: string }, UserRecord>(
  'SELECT u.id, u.email, u.name FROM channel_members cm JOIN users u ON u.id = cm.user_id WHERE cm.channel_id = :channelId ORDER BY cm.created_at',
);

const INSERT_TOKEN = statement<Omit<TokenRecord, 'lastUsedAt' | 'revokedAt'> & { tokenHash: string }>(
  `INSERT INTO api_tokens (id, workspace_id, user_id, name, token_hash, hint, created_at, read_only)
   VALUES (:id, :workspaceId, :userId, :name, :tokenHash, :hint, :createdAt, :readOnly)`,
);
const TOKENS = statement<{ workspaceId: string }, TokenRecord>(
  `SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE workspace_id = :workspaceId ORDER BY created_at`,
  { booleans: ['readOnly'] },
);
const TOKEN = statement<{ id: string }, TokenRecord>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE id = :id`, { booleans: ['readOnly'] });
const REVOKE_TOKEN = statement<{ id: string; revokedAt: number }>('UPDATE api_tokens SET revoked_at = :revokedAt WHERE id = :id');

/** Runs an insert whose only expected refusal is the unique index named (a name or address in use): that one answers 'taken'. */
async function unlessTaken(insert: Promise<unknown>, index: string, sqliteColumns?: string): Promise<'ok' | 'taken'> {
  try {
    await insert;
    return 'ok';
  } catch (err) {
    if (isUniqueClash(err, index, sqliteColumns)) return 'taken';
    throw err;
  }
}

/**
 * Workspaces, users, memberships, channels and tokens, on either engine. Not a hot path. A unique-key
 * clash (a slug or an address taken a moment ago, on PostgreSQL possibly by another node) comes back
 * as `'taken'` on both engines, so the use case answers it the same way.
 */
export class SqlAccountRows implements AccountRows {
  constructor(private readonly database: SqlExecutor) {}

  async insertWorkspace(row: { id: string; name: string; createdAt: number }): Promise<void> {
    await this.database.run(INSERT_WORKSPACE, row);
  }

  workspace(id: string): Promise<WorkspaceRow | undefined> {
    return this.database.get(WORKSPACE, { id });
  }

  workspacesOf(userId: string): Promise<(WorkspaceRow & { role: Role })[]> {
    return this.database.all(WORKSPACES_OF, { userId });
  }

  insertUser(row: UserRecord & { createdAt: number; emailVerified: boolean }): Promise<'ok' | 'taken'> {
    const { id, email, name, createdAt, emailVerified } = row;
    return unlessTaken(this.database.run(INSERT_USER, { id, email, name, createdAt, emailVerified }), VERIFIED_EMAIL_INDEX);
  }

  user(idOrEmail: string): Promise<AccountUser | undefined> {
    return this.database.get(USER, { idOrEmail });
  }

  userByVerifiedEmail(email: string): Promise<AccountUser | undefined> {
    return this.database.get(USER_BY_VERIFIED_EMAIL, { email });
  }

  async renameUser(userId: string, name: string): Promise<void> {
    await this.database.run(RENAME_USER, { userId, name });
  }

  async changeEmail(userId: string, email: string, verified: boolean): Promise<boolean> {
    if (!verified) return (await this.database.run(CHANGE_EMAIL_UNVERIFIED, { userId, email })) === 1;
    try {
      return (await this.database.run(CHANGE_EMAIL_VERIFIED, { userId, email })) === 1;
    } catch (err) {
      // Another node took the address between the check and the write: the unique index decides.
      if (isUniqueClash(err, VERIFIED_EMAIL_INDEX)) return false;
      throw err;
    }
  }

  async role(workspaceId: string, userId: string): Promise<Role | undefined> {
    return (await this.database.get(ROLE, { workspaceId, userId }))?.role;
  }

  async upsertMembership(row: MembershipRow): Promise<void> {
    const { workspaceId, userId, role, createdAt } = row;
    await this.database.run(UPSERT_MEMBERSHIP, { workspaceId, userId, role, createdAt });
  }

  removeMembership(workspaceId: string, userId: string): Promise<boolean> {
    // One transaction: a half-done removal would let a later re-add restore private access.
    return this.database.transaction(function* (tx) {
      if ((yield* tx.run(REMOVE_MEMBERSHIP, { workspaceId, userId })) === 0) return false;
      yield* tx.run(DROP_PRIVATE_MEMBERSHIPS, { workspaceId, userId });
      return true;
    });
  }

  setChannelPrivacy(channelId: string, change: { isPrivate: boolean; members?: string[]; now: number }): Promise<void> {
    // One transaction: between the flag and the member list nobody may see the channel who should not.
    return this.database.transaction(function* (tx) {
      yield* tx.run(SET_PRIVATE, { channelId, isPrivate: change.isPrivate });
      if (change.members === undefined) return;
      yield* tx.run(CLEAR_CHANNEL_MEMBERS, { channelId });
      for (const userId of change.members) yield* tx.run(ADD_CHANNEL_MEMBER, { channelId, userId, createdAt: change.now });
    });
  }

  members(workspaceId: string): Promise<(UserRecord & { role: Role })[]> {
    return this.database.all(MEMBERS, { workspaceId });
  }

  insertChannel(row: ChannelRecord & { createdAt: number }): Promise<'ok' | 'taken'> {
    const { id, workspaceId, name, slug, icon, isPrivate, webhookToken, createdAt } = row;
    const insert = this.database.run(INSERT_CHANNEL, { id, workspaceId, name, slug, icon, isPrivate, webhookToken, createdAt });
    return unlessTaken(insert, CHANNEL_SLUG_INDEX, CHANNEL_SLUG_COLUMNS);
  }

  async channelIdBySlug(workspaceId: string, slug: string): Promise<string | undefined> {
    return (await this.database.get(CHANNEL_ID_BY_SLUG, { workspaceId, slug }))?.id;
  }

  channelsByRef(ref: string, workspaceId?: string): Promise<ChannelRecord[]> {
    return this.database.all(CHANNELS_BY_REF, { ref, workspaceId: workspaceId ?? null });
  }

  async channelIdsOfUser(userId: string, ref: string): Promise<string[]> {
    return (await this.database.all(CHANNEL_IDS_OF_USER, { userId, ref })).map((row) => row.id);
  }

  privateChannels(workspaceId: string): Promise<ChannelRecord[]> {
    return this.database.all(PRIVATE_CHANNELS, { workspaceId });
  }

  channelInWorkspace(workspaceId: string, channelId: string): Promise<ChannelRecord | undefined> {
    return this.database.get(CHANNEL_IN_WORKSPACE, { workspaceId, channelId });
  }

  visibleChannels(workspaceId: string, userId: string): Promise<(ChannelRecord & { alertCount: number })[]> {
    return this.database.all(VISIBLE_CHANNELS, { workspaceId, userId });
  }

  async hasSigningSecret(channelId: string): Promise<boolean> {
    return Boolean((await this.database.get(SIGNING_SECRET, { channelId }))?.secret);
  }

  async updateChannel(channelId: string, change: { name?: string; icon?: string; webhookToken?: string; signingSecret?: string | null }): Promise<void> {
    if (Object.values(change).every((value) => value === undefined)) return;
    await this.database.run(UPDATE_CHANNEL, {
      channelId,
      name: change.name ?? null,
      icon: change.icon ?? null,
      webhookToken: change.webhookToken ?? null,
      changeSecret: change.signingSecret === undefined ? 0 : 1,
      signingSecret: change.signingSecret ?? null,
    });
  }

  async addChannelMember(row: { channelId: string; userId: string; createdAt: number }): Promise<void> {
    const { channelId, userId, createdAt } = row;
    await this.database.run(ADD_CHANNEL_MEMBER, { channelId, userId, createdAt });
  }

  async removeChannelMember(channelId: string, userId: string): Promise<boolean> {
    return (await this.database.run(REMOVE_CHANNEL_MEMBER, { channelId, userId })) > 0;
  }

  channelMembers(channelId: string): Promise<UserRecord[]> {
    return this.database.all(CHANNEL_MEMBERS, { channelId });
  }

  async insertToken(row: Omit<TokenRecord, 'lastUsedAt' | 'revokedAt'> & { tokenHash: string }): Promise<void> {
    const { id, workspaceId, userId, name, tokenHash, hint, createdAt, readOnly } = row;
    await this.database.run(INSERT_TOKEN, { id, workspaceId, userId, name, tokenHash, hint, createdAt, readOnly });
  }

  tokens(workspaceId: string): Promise<TokenRecord[]> {
    return this.database.all(TOKENS, { workspaceId });
  }

  token(id: string): Promise<TokenRecord | undefined> {
    return this.database.get(TOKEN, { id });
  }

  async revokeToken(id: string, revokedAt: number): Promise<void> {
    await this.database.run(REVOKE_TOKEN, { id, revokedAt });
  }
}
