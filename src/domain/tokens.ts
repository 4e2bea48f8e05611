import { createHash } from 'node:crypto';
import type { Clock } from '../lib/clock.js';
import { AppError, AuthError } from './errors.js';
import type { Limiter, RateDecision } from './rate-limiter.js';

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Who a read-API request acts as. */
export interface Principal {
  tokenId: string;
  userId: string;
  workspaceId: string;
  /** A read-only token: reads and read state only (requireWriter refuses the rest). */
  readOnly?: boolean;
}

/**
 * Refuses a read-only token (403 `read-only-token`): called by every API operation that changes
 * an alert for everyone (status, snooze, delete) and, later, by write tools over other transports.
 * Read state is each person's own and stays allowed.
 */
export function requireWriter(p: Principal): void {
  if (p.readOnly) throw new AppError('read-only-token', 'this token is read-only: it may read alerts and mark them read, nothing more');
}

/** An API token is `<prefix>_` and this many hexadecimal characters (24 random bytes). */
export const TOKEN_SECRET_HEX_CHARS = 48;

/** A token row as authentication reads it. */
export interface TokenRow {
  id: string;
  userId: string;
  workspaceId: string;
  revokedAt: number | null;
  readOnly: boolean;
  /** 1 when the user is still a member of the token's workspace. */
  member: number;
}

/** The token rows (src/db/token-rows.ts). */
export interface TokenRows {
  byHash(tokenHash: string): Promise<TokenRow | undefined>;
  touch(tokenId: string, now: number): Promise<void>;
  stillAuthorized(p: Principal): Promise<boolean>;
}

/**
 * A token's look-up that also spends one request of its API budget, in the same statement: on
 * PostgreSQL the count is otherwise a round trip of its own (src/db/pg/token-budget.ts). Only a
 * usable token (not revoked, its user still a member) is counted; `rate` is its decision.
 */
export type CountingLookUp = (tokenHash: string) => Promise<{ row: TokenRow | undefined; rate: RateDecision }>;

/** The read API's budget per token: the limiter, and where the engine has one, the look-up that counts with it. */
export interface ApiBudget {
  limiter: Limiter;
  lookUp?: CountingLookUp;
}

/** An authenticated request and the decision of its token's budget. */
export interface Admission {
  principal: Principal;
  rate: RateDecision;
}

/** last_used_at is written at most once a minute per token: a write per read request would cost more than the read. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Turns an Authorization header into a Principal, or an AuthError naming
 * exactly why not (the spec's six reasons, checked in the order a client would
 * want to fix them).
 */
export class TokenAuthenticator {
  private readonly pattern: RegExp;
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly rows: TokenRows,
    prefix: string,
    private readonly clock: Clock,
    private readonly budget: ApiBudget,
  ) {
    this.pattern = new RegExp(`^${prefix}_[0-9a-fA-F]{${TOKEN_SECRET_HEX_CHARS}}$`);
  }

  /** Whether a principal authenticated earlier still holds: token not revoked, user still a member (long-lived streams re-check). */
  stillAuthorized(p: Principal): Promise<boolean> {
    return this.rows.stillAuthorized(p);
  }

  /**
   * Authenticates and spends one request of the token's budget; a request the authentication
   * refuses spends nothing. With a counting look-up both take one round trip.
   */
  async admit(header: string | undefined | null): Promise<Admission> {
    const hash = this.hashOf(header);
    if (this.budget.lookUp) {
      const { row, rate } = await this.budget.lookUp(hash);
      return { principal: await this.principalOf(row), rate };
    }
    const principal = await this.principalOf(await this.rows.byHash(hash));
    const hit = this.budget.limiter.hit(principal.tokenId);
    return { principal, rate: hit instanceof Promise ? await hit : hit };
  }

  /** The stored hash of the header's token, or an AuthError naming what is wrong with the header. */
  private hashOf(header: string | undefined | null): string {
    if (header === undefined || header === null) throw new AuthError('no_credentials');
    const m = /^\s*(\S+)(?:\s+(.*))?$/s.exec(header);
    if (!m || m[1]!.toLowerCase() !== 'bearer') {
      if (header.trim() === '') throw new AuthError('no_credentials');
      throw new AuthError('malformed_authorization_header');
    }
    const token = (m[2] ?? '').trim();
    if (token === '' || token === 'undefined') throw new AuthError('token_env_var_unset');
    if (!this.pattern.test(token)) throw new AuthError('invalid_token_format');
    const [prefix, hex] = [token.slice(0, token.lastIndexOf('_')), token.slice(token.lastIndexOf('_') + 1)];
    return hashToken(`${prefix}_${hex.toLowerCase()}`);
  }

  private async principalOf(row: TokenRow | undefined): Promise<Principal> {
    if (!row || row.revokedAt !== null) throw new AuthError('unknown_token');
    if (!row.member) throw new AuthError('not_a_workspace_member');
    const now = this.clock.now();
    const last = this.lastTouched.get(row.id) ?? 0;
    if (now - last >= LAST_USED_RESOLUTION_MS) {
      this.lastTouched.set(row.id, now);
      try {
        await this.rows.touch(row.id, now);
      } catch {
        // "Last used" is bookkeeping: a read must not fail because it cannot be written (a full
        // disk refuses every write, yet reads need no space). Forget the mark, so the next request tries again.
        this.lastTouched.delete(row.id);
      }
    }
    return { tokenId: row.id, userId: row.userId, workspaceId: row.workspaceId, readOnly: row.readOnly };
  }
}
