import type Database from 'better-sqlite3';
import type { AppSecretRows } from '../domain/auth/app-secrets.js';
import type { AuditRow, AuditRows } from '../domain/auth/audit.js';
import type { PasswordRows } from '../domain/auth/passwords.js';
import type { NewSessionRow, Session, SessionRows } from '../domain/auth/sessions.js';
import type { ClaimedLink, LinkKind, LinkOwner, SignInLinkRows } from '../domain/auth/sign-in-links.js';

// Synchronous inside (better-sqlite3); the rows below return Promises, the seam src/db/pg/auth-rows.ts plugs into.

/** Named keys shared by every process on the same data (app_secrets). */
export class SqliteAppSecretRows implements AppSecretRows {
  private readonly s;

  constructor(sqlite: Database.Database) {
    this.s = {
      insert: sqlite.prepare<[string, string, number]>('INSERT OR IGNORE INTO app_secrets (name, value, created_at) VALUES (?, ?, ?)'),
      get: sqlite.prepare<[string], string>('SELECT value FROM app_secrets WHERE name = ?').pluck(),
    };
  }

  insertIfAbsent(name: string, value: string, now: number): void {
    this.s.insert.run(name, value, now);
  }

  get(name: string): string | undefined {
    return this.s.get.get(name);
  }
}

/** The audit log (audit_log, with the actor's e-mail from users). */
export class SqliteAuditRows implements AuditRows {
  private readonly s;

  constructor(sqlite: Database.Database) {
    this.s = {
      insert: sqlite.prepare<[string, string | null, string, string | null, string | null, number]>(
        'INSERT INTO audit_log (workspace_id, actor_user_id, action, target, client_address, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      list: sqlite.prepare<[string, number], AuditRow>(
        `SELECT a.id, a.created_at AS createdAt, a.actor_user_id AS actorId, u.email AS actorEmail, a.action, a.target, a.client_address AS fromAddr
         FROM audit_log a LEFT JOIN users u ON u.id = a.actor_user_id WHERE a.workspace_id = ? ORDER BY a.id DESC LIMIT ?`,
      ),
    };
  }

  insert(workspaceId: string, actorUserId: string | null, action: string, target: string | null, clientAddress: string | null, now: number): Promise<void> {
    this.s.insert.run(workspaceId, actorUserId, action, target, clientAddress, now);
    return Promise.resolve();
  }

  list(workspaceId: string, limit: number): Promise<AuditRow[]> {
    return Promise.resolve(this.s.list.all(workspaceId, limit));
  }
}

/** Password hashes (user_passwords). */
export class SqlitePasswordRows implements PasswordRows {
  private readonly s;

  constructor(sqlite: Database.Database) {
    this.s = {
      get: sqlite.prepare<[string], string>('SELECT hash FROM user_passwords WHERE user_id = ?').pluck(),
      upsert: sqlite.prepare<[string, string, number]>(
        `INSERT INTO user_passwords (user_id, hash, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at`,
      ),
      remove: sqlite.prepare<[string]>('DELETE FROM user_passwords WHERE user_id = ?'),
    };
  }

  hash(userId: string): Promise<string | undefined> {
    return Promise.resolve(this.s.get.get(userId));
  }

  upsert(userId: string, hash: string, now: number): Promise<void> {
    this.s.upsert.run(userId, hash, now);
    return Promise.resolve();
  }

  remove(userId: string): Promise<void> {
    this.s.remove.run(userId);
    return Promise.resolve();
  }
}

/** Dashboard sessions (sessions), keyed by the SHA-256 of the cookie secret. */
export class SqliteSessionRows implements SessionRows {
  private readonly s;

  constructor(sqlite: Database.Database) {
    this.s = {
      insert: sqlite.prepare<[NewSessionRow]>(
        `INSERT INTO sessions (id_hash, user_id, workspace_id, created_at, last_seen_at, authenticated_at, expires_at, client_address, user_agent)
         VALUES (@idHash, @userId, @workspaceId, @now, @now, @now, @expiresAt, @clientAddress, @userAgent)`,
      ),
      get: sqlite.prepare<[string], Session>(
        `SELECT id_hash AS idHash, user_id AS userId, workspace_id AS workspaceId, created_at AS createdAt,
                last_seen_at AS lastSeenAt, authenticated_at AS authenticatedAt, expires_at AS expiresAt
         FROM sessions WHERE id_hash = ?`,
      ),
      touch: sqlite.prepare<[number, string]>('UPDATE sessions SET last_seen_at = ? WHERE id_hash = ?'),
      reauth: sqlite.prepare<[number, string]>('UPDATE sessions SET authenticated_at = ? WHERE id_hash = ?'),
      setWorkspace: sqlite.prepare<[string, string]>('UPDATE sessions SET workspace_id = ? WHERE id_hash = ?'),
      delete: sqlite.prepare<[string]>('DELETE FROM sessions WHERE id_hash = ?'),
      deleteUser: sqlite.prepare<[string]>('DELETE FROM sessions WHERE user_id = ?'),
      seenFrom: sqlite.prepare<[string, string | null, string | null], number>(
        'SELECT 1 FROM sessions WHERE user_id = ? AND user_agent IS ? AND client_address IS ? LIMIT 1',
      ),
      prune: sqlite.prepare<[number, number]>('DELETE FROM sessions WHERE expires_at <= ? OR last_seen_at <= ?'),
    };
  }

  insert(row: NewSessionRow): Promise<void> {
    this.s.insert.run(row);
    return Promise.resolve();
  }

  get(idHash: string): Promise<Session | undefined> {
    return Promise.resolve(this.s.get.get(idHash));
  }

  seenFrom(userId: string, userAgent: string | null, clientAddress: string | null): Promise<boolean> {
    return Promise.resolve(this.s.seenFrom.get(userId, userAgent, clientAddress) !== undefined);
  }

  touch(idHash: string, now: number): Promise<void> {
    this.s.touch.run(now, idHash);
    return Promise.resolve();
  }

  setAuthenticatedAt(idHash: string, at: number): Promise<void> {
    this.s.reauth.run(at, idHash);
    return Promise.resolve();
  }

  setWorkspace(idHash: string, workspaceId: string): Promise<void> {
    this.s.setWorkspace.run(workspaceId, idHash);
    return Promise.resolve();
  }

  delete(idHash: string): Promise<void> {
    this.s.delete.run(idHash);
    return Promise.resolve();
  }

  deleteUser(userId: string): Promise<number> {
    return Promise.resolve(this.s.deleteUser.run(userId).changes);
  }

  prune(expiredBefore: number, idleBefore: number): Promise<number> {
    return Promise.resolve(this.s.prune.run(expiredBefore, idleBefore).changes);
  }
}

/** One-time sign-in links (sign_in_links), keyed by the SHA-256 of the link secret. */
export class SqliteSignInLinkRows implements SignInLinkRows {
  private readonly s;

  constructor(sqlite: Database.Database) {
    this.s = {
      insert: sqlite.prepare<[string, string, number, number, string | null, number]>(
        'INSERT INTO sign_in_links (token_hash, user_id, created_at, expires_at, new_email, invite) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      // A link with new_email is an address confirmation: it never signs anyone in (and a sign-in link never confirms).
      peek: sqlite.prepare<[string, number, number], LinkOwner>(
        `SELECT l.user_id AS userId, u.email, u.name, l.new_email AS newEmail FROM sign_in_links l JOIN users u ON u.id = l.user_id
         WHERE l.token_hash = ? AND l.used_at IS NULL AND l.expires_at > ? AND (l.new_email IS NOT NULL) = ?`,
      ),
      // The UPDATE is the claim: of two concurrent presses only one changes a row.
      claim: sqlite.prepare<[number, string, number], { userId: string; invite: number }>(
        'UPDATE sign_in_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? AND new_email IS NULL RETURNING user_id AS userId, invite',
      ),
      claimConfirmation: sqlite
        .prepare<[number, string, string, number], string>(
          `UPDATE sign_in_links SET used_at = ? WHERE token_hash = ? AND user_id = ? AND used_at IS NULL AND expires_at > ? AND new_email IS NOT NULL
           RETURNING new_email`,
        )
        .pluck(),
      prune: sqlite.prepare<[number]>('DELETE FROM sign_in_links WHERE expires_at <= ?'),
    };
  }

  insert(tokenHash: string, userId: string, now: number, expiresAt: number, newEmail: string | null, invite: boolean): Promise<void> {
    this.s.insert.run(tokenHash, userId, now, expiresAt, newEmail, invite ? 1 : 0);
    return Promise.resolve();
  }

  peek(tokenHash: string, now: number, kind: LinkKind): Promise<LinkOwner | undefined> {
    return Promise.resolve(this.s.peek.get(tokenHash, now, kind === 'confirm-email' ? 1 : 0));
  }

  claim(tokenHash: string, now: number): Promise<ClaimedLink | undefined> {
    const row = this.s.claim.get(now, tokenHash, now);
    return Promise.resolve(row && { userId: row.userId, invite: row.invite === 1 });
  }

  claimConfirmation(tokenHash: string, userId: string, now: number): Promise<string | undefined> {
    return Promise.resolve(this.s.claimConfirmation.get(now, tokenHash, userId, now));
  }

  prune(now: number): Promise<number> {
    return Promise.resolve(this.s.prune.run(now).changes);
  }
}
