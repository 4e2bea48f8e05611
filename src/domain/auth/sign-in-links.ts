import type Database from 'better-sqlite3';
import type { Clock } from '../../lib/clock.js';
import { digest, newSecret } from './secrets.js';

/** A sign-in link works once, within this time. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;

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
      insert: sqlite.prepare('INSERT INTO sign_in_links (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)'),
      peek: sqlite.prepare(
        `SELECT l.user_id AS userId, u.email, u.name FROM sign_in_links l JOIN users u ON u.id = l.user_id
         WHERE l.token_hash = ? AND l.used_at IS NULL AND l.expires_at > ?`,
      ),
      // The UPDATE is the claim: of two concurrent presses only one changes a row.
      claim: sqlite.prepare('UPDATE sign_in_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING user_id AS userId'),
      prune: sqlite.prepare('DELETE FROM sign_in_links WHERE expires_at <= ?'),
    };
  }

  issue(userId: string): { secret: string; expiresAt: number } {
    const secret = newSecret();
    const now = this.clock.now();
    const expiresAt = now + SIGN_IN_LINK_TTL_MS;
    this.s.insert.run(digest(secret), userId, now, expiresAt);
    return { secret, expiresAt };
  }

  /** Who a still-valid link is for, without using it (the confirmation page). */
  peek(secret: string): { userId: string; email: string; name: string } | undefined {
    return this.s.peek.get(digest(secret), this.clock.now()) as { userId: string; email: string; name: string } | undefined;
  }

  /** Uses the link: the user id once, undefined for an unknown, used or expired link. */
  consume(secret: string): string | undefined {
    const now = this.clock.now();
    const row = this.s.claim.get(now, digest(secret), now) as { userId: string } | undefined;
    return row?.userId;
  }

  prune(): number {
    return this.s.prune.run(this.clock.now()).changes;
  }
}
