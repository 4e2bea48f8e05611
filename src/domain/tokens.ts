import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Clock } from '../lib/clock.js';
import { AuthError } from './errors.js';

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Who a read-API request acts as. */
export interface Principal {
  tokenId: string;
  userId: string;
  workspaceId: string;
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
  private readonly lookup: Database.Statement<[string], { id: string; userId: string; workspaceId: string; revokedAt: number | null; member: number }>;
  private readonly touch: Database.Statement<[number, string]>;
  private readonly valid: Database.Statement<[Principal], number>;
  private readonly lastTouched = new Map<string, number>();

  constructor(
    sqlite: Database.Database,
    prefix: string,
    private readonly clock: Clock,
  ) {
    this.pattern = new RegExp(`^${prefix}_[0-9a-fA-F]{48}$`);
    this.lookup = sqlite.prepare(
      `SELECT t.id, t.user_id AS userId, t.workspace_id AS workspaceId, t.revoked_at AS revokedAt,
              EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = t.workspace_id AND m.user_id = t.user_id) AS member
       FROM api_tokens t WHERE t.token_hash = ?`,
    );
    this.touch = sqlite.prepare('UPDATE api_tokens SET last_used_at = ? WHERE id = ?');
    this.valid = sqlite
      .prepare<[Principal], number>(
        `SELECT EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = @workspaceId AND m.user_id = @userId)
            AND EXISTS (SELECT 1 FROM api_tokens t WHERE t.id = @tokenId AND t.revoked_at IS NULL)`,
      )
      .pluck();
  }

  /** Whether a principal authenticated earlier still holds: token not revoked, user still a member (long-lived streams re-check). */
  stillAuthorized(p: Principal): boolean {
    return this.valid.get(p) === 1;
  }

  authenticate(header: string | undefined | null): Principal {
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
    const row = this.lookup.get(hashToken(`${prefix}_${hex.toLowerCase()}`));
    if (!row || row.revokedAt !== null) throw new AuthError('unknown_token');
    if (!row.member) throw new AuthError('not_a_workspace_member');
    const now = this.clock.now();
    const last = this.lastTouched.get(row.id) ?? 0;
    if (now - last >= LAST_USED_RESOLUTION_MS) {
      this.lastTouched.set(row.id, now);
      this.touch.run(now, row.id);
    }
    return { tokenId: row.id, userId: row.userId, workspaceId: row.workspaceId };
  }
}
