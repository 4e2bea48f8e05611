import type Database from 'better-sqlite3';
import type { Clock } from '../../lib/clock.js';
import { digest, newSecret } from './secrets.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** A session unused this long ends (a forgotten laptop). */
export const SESSION_IDLE_MS = 7 * DAY;
/** Every session ends this long after sign-in, however active. */
export const SESSION_ABSOLUTE_MS = 30 * DAY;
/** Creating a token, rotating a webhook, changing a role or removing a member needs a proof of identity this recent. */
export const REAUTH_WINDOW_MS = 30 * MINUTE;
/** last_seen_at is written at most once a minute: a write per page view would cost more than the page. */
const TOUCH_RESOLUTION_MS = MINUTE;

export interface Session {
  idHash: string;
  userId: string;
  workspaceId: string | null;
  createdAt: number;
  lastSeenAt: number;
  authenticatedAt: number;
  expiresAt: number;
}

export interface SessionOrigin {
  clientAddress?: string | null;
  userAgent?: string | null;
}

/**
 * Server-side sessions. The caller gets the secret once (for the cookie); the
 * table holds its SHA-256. Knows no HTTP: the dashboard maps cookies to calls.
 */
export class Sessions {
  private readonly s;

  constructor(
    sqlite: Database.Database,
    private readonly clock: Clock,
  ) {
    this.s = {
      insert: sqlite.prepare(
        `INSERT INTO sessions (id_hash, user_id, workspace_id, created_at, last_seen_at, authenticated_at, expires_at, client_address, user_agent)
         VALUES (@idHash, @userId, @workspaceId, @now, @now, @now, @expiresAt, @clientAddress, @userAgent)`,
      ),
      get: sqlite.prepare(
        `SELECT id_hash AS idHash, user_id AS userId, workspace_id AS workspaceId, created_at AS createdAt,
                last_seen_at AS lastSeenAt, authenticated_at AS authenticatedAt, expires_at AS expiresAt
         FROM sessions WHERE id_hash = ?`,
      ),
      touch: sqlite.prepare('UPDATE sessions SET last_seen_at = ? WHERE id_hash = ?'),
      reauth: sqlite.prepare('UPDATE sessions SET authenticated_at = ? WHERE id_hash = ?'),
      setWorkspace: sqlite.prepare('UPDATE sessions SET workspace_id = ? WHERE id_hash = ?'),
      delete: sqlite.prepare('DELETE FROM sessions WHERE id_hash = ?'),
      deleteUser: sqlite.prepare('DELETE FROM sessions WHERE user_id = ?'),
      seenFrom: sqlite.prepare('SELECT 1 FROM sessions WHERE user_id = ? AND user_agent IS ? AND client_address IS ? LIMIT 1'),
      prune: sqlite.prepare('DELETE FROM sessions WHERE expires_at <= ? OR last_seen_at <= ?'),
    };
  }

  /**
   * A brand-new session (a new id at every sign-in, so a session id planted
   * before sign-in is worthless). `newDevice` tells whether this user agent and
   * address were seen in one of the user's live sessions, for the audit log.
   */
  create(userId: string, workspaceId: string | null, origin: SessionOrigin = {}): { secret: string; session: Session; newDevice: boolean } {
    const secret = newSecret();
    const now = this.clock.now();
    const newDevice = this.s.seenFrom.get(userId, origin.userAgent ?? null, origin.clientAddress ?? null) === undefined;
    const row = {
      idHash: digest(secret),
      userId,
      workspaceId,
      now,
      expiresAt: now + SESSION_ABSOLUTE_MS,
      clientAddress: origin.clientAddress ?? null,
      userAgent: origin.userAgent?.slice(0, 300) ?? null,
    };
    this.s.insert.run(row);
    return {
      secret,
      newDevice,
      session: { idHash: row.idHash, userId, workspaceId, createdAt: now, lastSeenAt: now, authenticatedAt: now, expiresAt: row.expiresAt },
    };
  }

  /** The live session for a cookie secret, or undefined (unknown, idle too long, or past its absolute end). */
  resolve(secret: string): Session | undefined {
    const idHash = digest(secret);
    const row = this.s.get.get(idHash) as Session | undefined;
    if (!row) return undefined;
    const now = this.clock.now();
    if (now >= row.expiresAt || now - row.lastSeenAt >= SESSION_IDLE_MS) {
      this.s.delete.run(idHash);
      return undefined;
    }
    if (now - row.lastSeenAt >= TOUCH_RESOLUTION_MS) {
      this.s.touch.run(now, idHash);
      row.lastSeenAt = now;
    }
    return row;
  }

  /** Whether a session still holds, without counting as activity: an open live stream is not the user being active. */
  isLive(idHash: string): boolean {
    const row = this.s.get.get(idHash) as Session | undefined;
    const now = this.clock.now();
    return Boolean(row && now < row.expiresAt && now - row.lastSeenAt < SESSION_IDLE_MS);
  }

  isRecentlyAuthenticated(session: Session): boolean {
    return this.clock.now() - session.authenticatedAt < REAUTH_WINDOW_MS;
  }

  /** The user proved their identity again (password confirmation). */
  reauthenticated(session: Session): void {
    session.authenticatedAt = this.clock.now();
    this.s.reauth.run(session.authenticatedAt, session.idHash);
  }

  switchWorkspace(session: Session, workspaceId: string): void {
    this.s.setWorkspace.run(workspaceId, session.idHash);
    session.workspaceId = workspaceId;
  }

  end(session: Session): void {
    this.s.delete.run(session.idHash);
  }

  /** "Sign out everywhere": every session of the user, this one included. */
  endAll(userId: string): number {
    return this.s.deleteUser.run(userId).changes;
  }

  prune(): number {
    const now = this.clock.now();
    return this.s.prune.run(now, now - SESSION_IDLE_MS).changes;
  }
}
