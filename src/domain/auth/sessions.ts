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

/** A sessions row as created (`now` is its creation, last-seen and authentication time). */
export interface NewSessionRow {
  idHash: string;
  userId: string;
  workspaceId: string | null;
  now: number;
  expiresAt: number;
  clientAddress: string | null;
  userAgent: string | null;
}

/** The sessions rows (src/db/shared/auth-rows.ts). */
export interface SessionRows {
  insert(row: NewSessionRow): Promise<void>;
  get(idHash: string): Promise<Session | undefined>;
  /** Whether one of the user's sessions came from this user agent and address. */
  seenFrom(userId: string, userAgent: string | null, clientAddress: string | null): Promise<boolean>;
  touch(idHash: string, now: number): Promise<void>;
  setAuthenticatedAt(idHash: string, at: number): Promise<void>;
  setWorkspace(idHash: string, workspaceId: string): Promise<void>;
  delete(idHash: string): Promise<void>;
  deleteUser(userId: string): Promise<number>;
  prune(expiredBefore: number, idleBefore: number): Promise<number>;
}

/**
 * Server-side sessions. The caller gets the secret once (for the cookie); the
 * table holds its SHA-256. Knows no HTTP: the dashboard maps cookies to calls.
 */
export class Sessions {
  constructor(
    private readonly rows: SessionRows,
    private readonly clock: Clock,
  ) {}

  /**
   * A brand-new session (a new id at every sign-in, so a session id planted
   * before sign-in is worthless). `newDevice` tells whether this user agent and
   * address were seen in one of the user's live sessions, for the audit log.
   */
  async create(userId: string, workspaceId: string | null, origin: SessionOrigin = {}): Promise<{ secret: string; session: Session; newDevice: boolean }> {
    const secret = newSecret();
    const now = this.clock.now();
    const newDevice = !(await this.rows.seenFrom(userId, origin.userAgent ?? null, origin.clientAddress ?? null));
    const row: NewSessionRow = {
      idHash: digest(secret),
      userId,
      workspaceId,
      now,
      expiresAt: now + SESSION_ABSOLUTE_MS,
      clientAddress: origin.clientAddress ?? null,
      userAgent: origin.userAgent?.slice(0, 300) ?? null,
    };
    await this.rows.insert(row);
    return {
      secret,
      newDevice,
      session: { idHash: row.idHash, userId, workspaceId, createdAt: now, lastSeenAt: now, authenticatedAt: now, expiresAt: row.expiresAt },
    };
  }

  /** The live session for a cookie secret, or undefined (unknown, idle too long, or past its absolute end). */
  async resolve(secret: string): Promise<Session | undefined> {
    const idHash = digest(secret);
    const row = await this.rows.get(idHash);
    if (!row) return undefined;
    const now = this.clock.now();
    if (now >= row.expiresAt || now - row.lastSeenAt >= SESSION_IDLE_MS) {
      await this.rows.delete(idHash);
      return undefined;
    }
    if (now - row.lastSeenAt >= TOUCH_RESOLUTION_MS) {
      await this.rows.touch(idHash, now);
      row.lastSeenAt = now;
    }
    return row;
  }

  /** Whether a session still holds, without counting as activity: an open live stream is not the user being active. */
  async isLive(idHash: string): Promise<boolean> {
    const row = await this.rows.get(idHash);
    const now = this.clock.now();
    return Boolean(row && now < row.expiresAt && now - row.lastSeenAt < SESSION_IDLE_MS);
  }

  isRecentlyAuthenticated(session: Session): boolean {
    return this.clock.now() - session.authenticatedAt < REAUTH_WINDOW_MS;
  }

  /** The user proved their identity again (password confirmation). */
  async reauthenticated(session: Session): Promise<void> {
    session.authenticatedAt = this.clock.now();
    await this.rows.setAuthenticatedAt(session.idHash, session.authenticatedAt);
  }

  async switchWorkspace(session: Session, workspaceId: string): Promise<void> {
    await this.rows.setWorkspace(session.idHash, workspaceId);
    session.workspaceId = workspaceId;
  }

  async end(session: Session): Promise<void> {
    await this.rows.delete(session.idHash);
  }

  /** "Sign out everywhere": every session of the user, this one included. */
  endAll(userId: string): Promise<number> {
    return this.rows.deleteUser(userId);
  }

  prune(): Promise<number> {
    const now = this.clock.now();
    return this.rows.prune(now, now - SESSION_IDLE_MS);
  }
}
