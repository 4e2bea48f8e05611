import type pg from 'pg';
import type { AsyncAppSecretRows } from '../../domain/auth/app-secrets.js';
import type { AuditRow, AuditRows } from '../../domain/auth/audit.js';
import type { PasswordRows } from '../../domain/auth/passwords.js';
import type { NewSessionRow, Session, SessionRows } from '../../domain/auth/sessions.js';
import type { ClaimedLink, LinkKind, LinkOwner, SignInLinkRows } from '../../domain/auth/sign-in-links.js';

/**
 * The dashboard's auth rows on PostgreSQL: the same statements as the SQLite rows
 * (src/db/auth-rows.ts). Nothing is kept in a node's memory, so a session signed out or a
 * link used through one node is gone on every node at its next request.
 */

/** app_secrets: read at start-up (loadAppSecrets); the first value stored wins, whichever node stored it. */
export class PgAppSecretRows implements AsyncAppSecretRows {
  constructor(private readonly pool: pg.Pool) {}

  async insertIfAbsent(name: string, value: string, now: number): Promise<void> {
    await this.pool.query('INSERT INTO app_secrets (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING', [name, value, now]);
  }

  async get(name: string): Promise<string | undefined> {
    return (await this.pool.query<{ value: string }>('SELECT value FROM app_secrets WHERE name = $1', [name])).rows[0]?.value;
  }
}

/** The audit log (audit_log, with the actor's e-mail from users). */
export class PgAuditRows implements AuditRows {
  constructor(private readonly pool: pg.Pool) {}

  async insert(workspaceId: string, actorUserId: string | null, action: string, target: string | null, clientAddress: string | null, now: number): Promise<void> {
    await this.pool.query(
      'INSERT INTO audit_log (workspace_id, actor_user_id, action, target, client_address, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [workspaceId, actorUserId, action, target, clientAddress, now],
    );
  }

  async list(workspaceId: string, limit: number): Promise<AuditRow[]> {
    const { rows } = await this.pool.query<AuditRow>(
      `SELECT a.id, a.created_at AS "createdAt", a.actor_user_id AS "actorId", u.email AS "actorEmail", a.action, a.target, a.client_address AS "fromAddr"
       FROM audit_log a LEFT JOIN users u ON u.id = a.actor_user_id WHERE a.workspace_id = $1 ORDER BY a.id DESC LIMIT $2`,
      [workspaceId, limit],
    );
    return rows;
  }
}

/** Password hashes (user_passwords). */
export class PgPasswordRows implements PasswordRows {
  constructor(private readonly pool: pg.Pool) {}

  async hash(userId: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ hash: string }>('SELECT hash FROM user_passwords WHERE user_id = $1', [userId]);
    return rows[0]?.hash;
  }

  async upsert(userId: string, hash: string, now: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO user_passwords (user_id, hash, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at`,
      [userId, hash, now],
    );
  }

  async remove(userId: string): Promise<void> {
    await this.pool.query('DELETE FROM user_passwords WHERE user_id = $1', [userId]);
  }
}

/** Dashboard sessions (sessions), keyed by the SHA-256 of the cookie secret. */
export class PgSessionRows implements SessionRows {
  constructor(private readonly pool: pg.Pool) {}

  async insert(r: NewSessionRow): Promise<void> {
    await this.pool.query(
      `INSERT INTO sessions (id_hash, user_id, workspace_id, created_at, last_seen_at, authenticated_at, expires_at, client_address, user_agent)
       VALUES ($1, $2, $3, $4, $4, $4, $5, $6, $7)`,
      [r.idHash, r.userId, r.workspaceId, r.now, r.expiresAt, r.clientAddress, r.userAgent],
    );
  }

  async get(idHash: string): Promise<Session | undefined> {
    const { rows } = await this.pool.query<Session>(
      `SELECT id_hash AS "idHash", user_id AS "userId", workspace_id AS "workspaceId", created_at AS "createdAt",
              last_seen_at AS "lastSeenAt", authenticated_at AS "authenticatedAt", expires_at AS "expiresAt"
       FROM sessions WHERE id_hash = $1`,
      [idHash],
    );
    return rows[0];
  }

  async seenFrom(userId: string, userAgent: string | null, clientAddress: string | null): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'SELECT 1 FROM sessions WHERE user_id = $1 AND user_agent IS NOT DISTINCT FROM $2 AND client_address IS NOT DISTINCT FROM $3 LIMIT 1',
      [userId, userAgent, clientAddress],
    );
    return (rowCount ?? 0) > 0;
  }

  async touch(idHash: string, now: number): Promise<void> {
    await this.pool.query('UPDATE sessions SET last_seen_at = $1 WHERE id_hash = $2', [now, idHash]);
  }

  async setAuthenticatedAt(idHash: string, at: number): Promise<void> {
    await this.pool.query('UPDATE sessions SET authenticated_at = $1 WHERE id_hash = $2', [at, idHash]);
  }

  async setWorkspace(idHash: string, workspaceId: string): Promise<void> {
    await this.pool.query('UPDATE sessions SET workspace_id = $1 WHERE id_hash = $2', [workspaceId, idHash]);
  }

  async delete(idHash: string): Promise<void> {
    await this.pool.query('DELETE FROM sessions WHERE id_hash = $1', [idHash]);
  }

  async deleteUser(userId: string): Promise<number> {
    return (await this.pool.query('DELETE FROM sessions WHERE user_id = $1', [userId])).rowCount ?? 0;
  }

  async prune(expiredBefore: number, idleBefore: number): Promise<number> {
    return (await this.pool.query('DELETE FROM sessions WHERE expires_at <= $1 OR last_seen_at <= $2', [expiredBefore, idleBefore])).rowCount ?? 0;
  }
}

/** One-time sign-in links (sign_in_links), keyed by the SHA-256 of the link secret. */
export class PgSignInLinkRows implements SignInLinkRows {
  constructor(private readonly pool: pg.Pool) {}

  async insert(tokenHash: string, userId: string, now: number, expiresAt: number, newEmail: string | null, invite: boolean): Promise<void> {
    await this.pool.query(
      'INSERT INTO sign_in_links (token_hash, user_id, created_at, expires_at, new_email, invite) VALUES ($1, $2, $3, $4, $5, $6)',
      [tokenHash, userId, now, expiresAt, newEmail, invite],
    );
  }

  /** A link with new_email is an address confirmation: it never signs anyone in (and a sign-in link never confirms). */
  async peek(tokenHash: string, now: number, kind: LinkKind): Promise<LinkOwner | undefined> {
    const { rows } = await this.pool.query<LinkOwner>(
      `SELECT l.user_id AS "userId", u.email, u.name, l.new_email AS "newEmail" FROM sign_in_links l JOIN users u ON u.id = l.user_id
       WHERE l.token_hash = $1 AND l.used_at IS NULL AND l.expires_at > $2 AND (l.new_email IS NOT NULL) = $3`,
      [tokenHash, now, kind === 'confirm-email'],
    );
    return rows[0];
  }

  /**
   * One statement is the claim: under READ COMMITTED a second UPDATE of the same row waits for the
   * first to commit, re-checks `used_at IS NULL` on the new row version and changes nothing, so of
   * two nodes pressing the same link at once exactly one gets it.
   */
  async claim(tokenHash: string, now: number): Promise<ClaimedLink | undefined> {
    const { rows } = await this.pool.query<ClaimedLink>(
      `UPDATE sign_in_links SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1 AND new_email IS NULL
       RETURNING user_id AS "userId", invite`,
      [now, tokenHash],
    );
    return rows[0];
  }

  async claimConfirmation(tokenHash: string, userId: string, now: number): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ newEmail: string }>(
      `UPDATE sign_in_links SET used_at = $1 WHERE token_hash = $2 AND user_id = $3 AND used_at IS NULL AND expires_at > $1 AND new_email IS NOT NULL
       RETURNING new_email AS "newEmail"`,
      [now, tokenHash, userId],
    );
    return rows[0]?.newEmail;
  }

  async prune(now: number): Promise<number> {
    return (await this.pool.query('DELETE FROM sign_in_links WHERE expires_at <= $1', [now])).rowCount ?? 0;
  }
}
