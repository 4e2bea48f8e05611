import type Database from 'better-sqlite3';
import type { Clock } from '../../lib/clock.js';
import { digest, newSecret } from './secrets.js';

/** A sign-in link works once, within this time. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;

export interface LinkOwner {
  userId: string;
  email: string;
  name: string;
  newEmail: string | null;
}

/**
 * One-time sign-in links (e-mailed, printed by `admin login-link`, or shown to
 * an inviter). The secret exists only in the link; the table holds its SHA-256.
 */
export class SignInLinks {
  private readonly s;

  constructor(
    private readonly sqlite: Database.Database,
    private readonly clock: Clock,
  ) {
    this.s = {
      insert: sqlite.prepare('INSERT INTO sign_in_links (token_hash, user_id, created_at, expires_at, new_email, invite) VALUES (?, ?, ?, ?, ?, ?)'),
      peek: sqlite.prepare(
        `SELECT l.user_id AS userId, u.email, u.name, l.new_email AS newEmail FROM sign_in_links l JOIN users u ON u.id = l.user_id
         WHERE l.token_hash = ? AND l.used_at IS NULL AND l.expires_at > ?`,
      ),
      // The UPDATE is the claim: of two concurrent presses only one changes a row.
      claim: sqlite.prepare('UPDATE sign_in_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING user_id AS userId, new_email AS newEmail, invite'),
      prune: sqlite.prepare('DELETE FROM sign_in_links WHERE expires_at <= ?'),
    };
  }

  /**
   * With `newEmail`, using the link also moves the user to that address (send
   * it there). An `invite` link leads to a welcome that asks for a name.
   */
  issue(userId: string, opts: { newEmail?: string; invite?: boolean } = {}): { secret: string; expiresAt: number } {
    const secret = newSecret();
    const now = this.clock.now();
    const expiresAt = now + SIGN_IN_LINK_TTL_MS;
    this.s.insert.run(digest(secret), userId, now, expiresAt, opts.newEmail ?? null, opts.invite ? 1 : 0);
    return { secret, expiresAt };
  }

  /** Who a still-valid link is for, without using it (the confirmation page). */
  peek(secret: string): LinkOwner | undefined {
    return this.s.peek.get(digest(secret), this.clock.now()) as LinkOwner | undefined;
  }

  /** Uses the link: its user (and e-mail change) once, undefined for an unknown, used or expired link. */
  consume(secret: string): { userId: string; newEmail: string | null; invite: boolean } | undefined {
    const now = this.clock.now();
    const row = this.s.claim.get(now, digest(secret), now) as { userId: string; newEmail: string | null; invite: number } | undefined;
    return row && { ...row, invite: row.invite === 1 };
  }

  /** Used and expired links are dead weight: pruned at sign-ins. */
  prune(): number {
    return this.s.prune.run(this.clock.now()).changes;
  }
}
