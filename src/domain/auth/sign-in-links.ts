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

export interface ClaimedLink {
  userId: string;
  newEmail: string | null;
  invite: boolean;
}

/** The sign_in_links rows (src/db/auth-rows.ts). */
export interface SignInLinkRows {
  insert(tokenHash: string, userId: string, now: number, expiresAt: number, newEmail: string | null, invite: boolean): Promise<void>;
  /** The owner of an unused link still valid at `now`. */
  peek(tokenHash: string, now: number): Promise<LinkOwner | undefined>;
  /** Marks an unused, unexpired link used in one statement; of two concurrent claims (on any nodes) only one gets the row. */
  claim(tokenHash: string, now: number): Promise<ClaimedLink | undefined>;
  prune(now: number): Promise<number>;
}

/**
 * One-time sign-in links (e-mailed, printed by `admin login-link`, or shown to
 * an inviter). The secret exists only in the link; the table holds its SHA-256.
 */
export class SignInLinks {
  constructor(
    private readonly rows: SignInLinkRows,
    private readonly clock: Clock,
  ) {}

  /**
   * With `newEmail`, using the link also moves the user to that address (send
   * it there). An `invite` link leads to a welcome that asks for a name.
   */
  async issue(userId: string, opts: { newEmail?: string; invite?: boolean } = {}): Promise<{ secret: string; expiresAt: number }> {
    const secret = newSecret();
    const now = this.clock.now();
    const expiresAt = now + SIGN_IN_LINK_TTL_MS;
    await this.rows.insert(digest(secret), userId, now, expiresAt, opts.newEmail ?? null, opts.invite === true);
    return { secret, expiresAt };
  }

  /** Who a still-valid link is for, without using it (the confirmation page). */
  peek(secret: string): Promise<LinkOwner | undefined> {
    return this.rows.peek(digest(secret), this.clock.now());
  }

  /** Uses the link: its user (and e-mail change) once, undefined for an unknown, used or expired link. */
  consume(secret: string): Promise<ClaimedLink | undefined> {
    return this.rows.claim(digest(secret), this.clock.now());
  }

  /** Used and expired links are dead weight: pruned at sign-ins. */
  prune(): Promise<number> {
    return this.rows.prune(this.clock.now());
  }
}
