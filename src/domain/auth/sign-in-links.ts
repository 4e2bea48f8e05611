import type { Clock } from '../../lib/clock.js';
import { digest, newSecret } from './secrets.js';

/** A sign-in link works once, within this time. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
/**
 * An address confirmation works once, within this time: long enough for a mail that arrives late or
 * is read the next morning, and it signs nobody in (the person must already be signed in to use it).
 */
export const EMAIL_CONFIRMATION_TTL_MS = 24 * 60 * 60_000;

/** A row of sign_in_links is a sign-in link, or (with `new_email`) an address confirmation. */
export type LinkKind = 'sign-in' | 'confirm-email';

export interface LinkOwner {
  userId: string;
  email: string;
  name: string;
  newEmail: string | null;
}

export interface ClaimedLink {
  userId: string;
  invite: boolean;
}

/** The sign_in_links rows (src/db/shared/auth-rows.ts). */
export interface SignInLinkRows {
  insert(tokenHash: string, userId: string, now: number, expiresAt: number, newEmail: string | null, invite: boolean): Promise<void>;
  /** The owner of an unused link of this kind still valid at `now`. */
  peek(tokenHash: string, now: number, kind: LinkKind): Promise<LinkOwner | undefined>;
  /** Marks an unused, unexpired sign-in link used in one statement; of two concurrent claims (on any nodes) only one gets the row. */
  claim(tokenHash: string, now: number): Promise<ClaimedLink | undefined>;
  /** The same for an address confirmation of `userId`: its new address, once. */
  claimConfirmation(tokenHash: string, userId: string, now: number): Promise<string | undefined>;
  prune(now: number): Promise<number>;
}

/**
 * One-time sign-in links (e-mailed, printed by `admin login-link`, or shown to
 * an inviter) and address confirmations. The secret exists only in the link;
 * the table holds its SHA-256.
 */
export class SignInLinks {
  constructor(
    private readonly rows: SignInLinkRows,
    private readonly clock: Clock,
  ) {}

  /** An `invite` link leads to a welcome that asks for a name. */
  async issue(userId: string, opts: { invite?: boolean } = {}): Promise<{ secret: string; expiresAt: number }> {
    return await this.insert(userId, SIGN_IN_LINK_TTL_MS, null, opts.invite === true);
  }

  /** A link sent to `newEmail`: opening it while signed in as `userId` proves the mailbox and moves the user there. */
  async issueEmailConfirmation(userId: string, newEmail: string): Promise<{ secret: string; expiresAt: number }> {
    return await this.insert(userId, EMAIL_CONFIRMATION_TTL_MS, newEmail, false);
  }

  private async insert(userId: string, ttlMs: number, newEmail: string | null, invite: boolean) {
    const secret = newSecret();
    const now = this.clock.now();
    const expiresAt = now + ttlMs;
    await this.rows.insert(digest(secret), userId, now, expiresAt, newEmail, invite);
    return { secret, expiresAt };
  }

  /** Who a still-valid sign-in link is for, without using it (the confirmation page). */
  peek(secret: string): Promise<LinkOwner | undefined> {
    return this.rows.peek(digest(secret), this.clock.now(), 'sign-in');
  }

  /** Uses the sign-in link: its user once, undefined for an unknown, used or expired link (or an address confirmation). */
  consume(secret: string): Promise<ClaimedLink | undefined> {
    return this.rows.claim(digest(secret), this.clock.now());
  }

  /** Whose still-valid address confirmation this is, and for which address, without using it. */
  peekEmailConfirmation(secret: string): Promise<LinkOwner | undefined> {
    return this.rows.peek(digest(secret), this.clock.now(), 'confirm-email');
  }

  /** Uses `userId`'s address confirmation: the proven address once; undefined when unknown, used, expired or someone else's. */
  consumeEmailConfirmation(secret: string, userId: string): Promise<string | undefined> {
    return this.rows.claimConfirmation(digest(secret), userId, this.clock.now());
  }

  /** Used and expired links are dead weight: pruned at sign-ins. */
  prune(): Promise<number> {
    return this.rows.prune(this.clock.now());
  }
}
