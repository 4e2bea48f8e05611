import type { AsyncAppSecretRows } from '../../domain/auth/app-secrets.js';
import type { AuditRow, AuditRows } from '../../domain/auth/audit.js';
import type { PasswordRows } from '../../domain/auth/passwords.js';
import type { NewSessionRow, Session, SessionRows } from '../../domain/auth/sessions.js';
import type { ClaimedLink, LinkKind, LinkOwner, SignInLinkRows } from '../../domain/auth/sign-in-links.js';
import type { SqlExecutor } from './executor.js';
import { statement } from './statement.js';

// The dashboard's auth rows, on either engine. Nothing is kept in a node's memory, so a session signed
// out or a link used through one node is gone on every node at its next request.

/** The first value stored wins, whichever process (or node) stored it. */
export const INSERT_APP_SECRET = statement<{ name: string; value: string; now: number }>(
  'INSERT INTO app_secrets (name, value, created_at) VALUES (:name, :value, :now) ON CONFLICT (name) DO NOTHING',
);
export const APP_SECRET = statement<{ name: string }, { value: string }>('SELECT value FROM app_secrets WHERE name = :name');

const INSERT_AUDIT = statement<{ workspaceId: string; actorUserId: string | null; action: string; target: string | null; clientAddress: string | null; now: number }>(
  `INSERT INTO audit_log (workspace_id, actor_user_id, action, target, client_address, created_at)
   VALUES (:workspaceId, :actorUserId, :action, :target, :clientAddress, :now)`,
);
const AUDIT_LIST = statement<{ workspaceId: string; limit: number }, AuditRow>(
  `SELECT a.id, a.created_at AS "createdAt", a.actor_user_id AS "actorId", u.email AS "actorEmail", a.action, a.target, a.client_address AS "fromAddr"
   FROM audit_log a LEFT JOIN users u ON u.id = a.actor_user_id WHERE a.workspace_id = :workspaceId ORDER BY a.id DESC LIMIT :limit`,
);

const PASSWORD_HASH = statement<{ userId: string }, { hash: string }>('SELECT hash FROM user_passwords WHERE user_id = :userId');
const UPSERT_PASSWORD = statement<{ userId: string; hash: string; now: number }>(
  `INSERT INTO user_passwords (user_id, hash, updated_at) VALUES (:userId, :hash, :now)
   ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at`,
);
const REMOVE_PASSWORD = statement<{ userId: string }>('DELETE FROM user_passwords WHERE user_id = :userId');

const INSERT_SESSION = statement<NewSessionRow>(
  `INSERT INTO sessions (id_hash, user_id, workspace_id, created_at, last_seen_at, authenticated_at, expires_at, client_address, user_agent)
   VALUES (:idHash, :userId, :workspaceId, :now, :now, :now, :expiresAt, :clientAddress, :userAgent)`,
);
const SESSION = statement<{ idHash: string }, Session>(
  `SELECT id_hash AS "idHash", user_id AS "userId", workspace_id AS "workspaceId", created_at AS "createdAt",
          last_seen_at AS "lastSeenAt", authenticated_at AS "authenticatedAt", expires_at AS "expiresAt"
   FROM sessions WHERE id_hash = :idHash`,
);
const SEEN_FROM = statement<{ userId: string; userAgent: string | null; clientAddress: string | null }, { seen: number }>(
  `SELECT 1 AS seen FROM sessions
   WHERE user_id = :userId AND user_agent IS NOT DISTINCT FROM :userAgent AND client_address IS NOT DISTINCT FROM :clientAddress LIMIT 1`,
);
const TOUCH_SESSION = statement<{ idHash: string; now: number }>('UPDATE sessions SET last_seen_at = :now WHERE id_hash = :idHash');
const REAUTHENTICATED = statement<{ idHash: string; at: number }>('UPDATE sessions SET authenticated_at = :at WHERE id_hash = :idHash');
const SET_WORKSPACE = statement<{ idHash: string; workspaceId: string }>('UPDATE sessions SET workspace_id = :workspaceId WHERE id_hash = :idHash');
const DELETE_SESSION = statement<{ idHash: string }>('DELETE FROM sessions WHERE id_hash = :idHash');
const DELETE_USER_SESSIONS = statement<{ userId: string }>('DELETE FROM sessions WHERE user_id = :userId');
const PRUNE_SESSIONS = statement<{ expiredBefore: number; idleBefore: number }>(
  'DELETE FROM sessions WHERE expires_at <= :expiredBefore OR last_seen_at <= :idleBefore',
);

const INSERT_LINK = statement<{ tokenHash: string; userId: string; now: number; expiresAt: number; newEmail: string | null; invite: boolean }>(
  `INSERT INTO sign_in_links (token_hash, user_id, created_at, expires_at, new_email, invite)
   VALUES (:tokenHash, :userId, :now, :expiresAt, :newEmail, :invite)`,
);
// A link with new_email is an address confirmation: it never signs anyone in (and a sign-in link never confirms).
const PEEK_LINK = statement<{ tokenHash: string; now: number; confirmation: boolean }, LinkOwner>(
  `SELECT l.user_id AS "userId", u.email, u.name, l.new_email AS "newEmail" FROM sign_in_links l JOIN users u ON u.id = l.user_id
   WHERE l.token_hash = :tokenHash AND l.used_at IS NULL AND l.expires_at > :now AND (l.new_email IS NOT NULL) = :confirmation`,
);
/**
 * One statement is the claim: of two concurrent presses only one changes a row (on PostgreSQL, under
 * READ COMMITTED, the second UPDATE waits for the first to commit and re-checks `used_at IS NULL`).
 */
const CLAIM_LINK = statement<{ tokenHash: string; now: number }, ClaimedLink>(
  `UPDATE sign_in_links SET used_at = :now WHERE token_hash = :tokenHash AND used_at IS NULL AND expires_at > :now AND new_email IS NULL
   RETURNING user_id AS "userId", invite`,
  { booleans: ['invite'] },
);
const CLAIM_CONFIRMATION = statement<{ tokenHash: string; userId: string; now: number }, { newEmail: string }>(
  `UPDATE sign_in_links SET used_at = :now
   WHERE token_hash = :tokenHash AND user_id = :userId AND used_at IS NULL AND expires_at > :now AND new_email IS NOT NULL
   RETURNING new_email AS "newEmail"`,
);
const PRUNE_LINKS = statement<{ now: number }>('DELETE FROM sign_in_links WHERE expires_at <= :now');

/** app_secrets, as the PostgreSQL start-up reads it (loadAppSecrets); SQLite reads it synchronously (src/db/sqlite/app-secret-rows.ts). */
export class SqlAppSecretRows implements AsyncAppSecretRows {
  constructor(private readonly database: SqlExecutor) {}

  async insertIfAbsent(name: string, value: string, now: number): Promise<void> {
    await this.database.run(INSERT_APP_SECRET, { name, value, now });
  }

  async get(name: string): Promise<string | undefined> {
    return (await this.database.get(APP_SECRET, { name }))?.value;
  }
}

/** The audit log (audit_log, with the actor's e-mail from users). */
export class SqlAuditRows implements AuditRows {
  constructor(private readonly database: SqlExecutor) {}

  async insert(workspaceId: string, actorUserId: string | null, action: string, target: string | null, clientAddress: string | null, now: number): Promise<void> {
    await this.database.run(INSERT_AUDIT, { workspaceId, actorUserId, action, target, clientAddress, now });
  }

  list(workspaceId: string, limit: number): Promise<AuditRow[]> {
    return this.database.all(AUDIT_LIST, { workspaceId, limit });
  }
}

/** Password hashes (user_passwords). */
export class SqlPasswordRows implements PasswordRows {
  constructor(private readonly database: SqlExecutor) {}

  async hash(userId: string): Promise<string | undefined> {
    return (await this.database.get(PASSWORD_HASH, { userId }))?.hash;
  }

  async upsert(userId: string, hash: string, now: number): Promise<void> {
    await this.database.run(UPSERT_PASSWORD, { userId, hash, now });
  }

  async remove(userId: string): Promise<void> {
    await this.database.run(REMOVE_PASSWORD, { userId });
  }
}

/** Dashboard sessions (sessions), keyed by the SHA-256 of the cookie secret. */
export class SqlSessionRows implements SessionRows {
  constructor(private readonly database: SqlExecutor) {}

  async insert(row: NewSessionRow): Promise<void> {
    const { idHash, userId, workspaceId, now, expiresAt, clientAddress, userAgent } = row;
    await this.database.run(INSERT_SESSION, { idHash, userId, workspaceId, now, expiresAt, clientAddress, userAgent });
  }

  get(idHash: string): Promise<Session | undefined> {
    return this.database.get(SESSION, { idHash });
  }

  async seenFrom(userId: string, userAgent: string | null, clientAddress: string | null): Promise<boolean> {
    return (await this.database.value(SEEN_FROM, { userId, userAgent, clientAddress })) !== undefined;
  }

  async touch(idHash: string, now: number): Promise<void> {
    await this.database.run(TOUCH_SESSION, { idHash, now });
  }

  async setAuthenticatedAt(idHash: string, at: number): Promise<void> {
    await this.database.run(REAUTHENTICATED, { idHash, at });
  }

  async setWorkspace(idHash: string, workspaceId: string): Promise<void> {
    await this.database.run(SET_WORKSPACE, { idHash, workspaceId });
  }

  async delete(idHash: string): Promise<void> {
    await this.database.run(DELETE_SESSION, { idHash });
  }

  deleteUser(userId: string): Promise<number> {
    return this.database.run(DELETE_USER_SESSIONS, { userId });
  }

  prune(expiredBefore: number, idleBefore: number): Promise<number> {
    return this.database.run(PRUNE_SESSIONS, { expiredBefore, idleBefore });
  }
}

/** One-time sign-in links (sign_in_links), keyed by the SHA-256 of the link secret. */
export class SqlSignInLinkRows implements SignInLinkRows {
  constructor(private readonly database: SqlExecutor) {}

  async insert(tokenHash: string, userId: string, now: number, expiresAt: number, newEmail: string | null, invite: boolean): Promise<void> {
    await this.database.run(INSERT_LINK, { tokenHash, userId, now, expiresAt, newEmail, invite });
  }

  peek(tokenHash: string, now: number, kind: LinkKind): Promise<LinkOwner | undefined> {
    return this.database.get(PEEK_LINK, { tokenHash, now, confirmation: kind === 'confirm-email' });
  }

  claim(tokenHash: string, now: number): Promise<ClaimedLink | undefined> {
    return this.database.get(CLAIM_LINK, { tokenHash, now });
  }

  async claimConfirmation(tokenHash: string, userId: string, now: number): Promise<string | undefined> {
    return (await this.database.get(CLAIM_CONFIRMATION, { tokenHash, userId, now }))?.newEmail;
  }

  prune(now: number): Promise<number> {
    return this.database.run(PRUNE_LINKS, { now });
  }
}
