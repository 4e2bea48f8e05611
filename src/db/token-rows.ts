import type Database from 'better-sqlite3';
import type { Principal, TokenRows, TokenRow } from '../domain/tokens.js';

/** API tokens and the membership behind them, in SQLite. */
export class SqliteTokenRows implements TokenRows {
  private readonly s;

  constructor(sqlite: Database.Database) {
    this.s = {
      byHash: sqlite.prepare<[string], TokenRow>(
        `SELECT t.id, t.user_id AS userId, t.workspace_id AS workspaceId, t.revoked_at AS revokedAt,
                EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = t.workspace_id AND m.user_id = t.user_id) AS member
         FROM api_tokens t WHERE t.token_hash = ?`,
      ),
      touch: sqlite.prepare<[number, string]>('UPDATE api_tokens SET last_used_at = ? WHERE id = ?'),
      valid: sqlite
        .prepare<[Principal], number>(
          `SELECT EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = @workspaceId AND m.user_id = @userId)
              AND EXISTS (SELECT 1 FROM api_tokens t WHERE t.id = @tokenId AND t.revoked_at IS NULL)`,
        )
        .pluck(),
    };
  }

  // Synchronous inside (better-sqlite3), Promises outside: the seam a PostgreSQL engine plugs into.
  byHash(hash: string): Promise<TokenRow | undefined> {
    return Promise.resolve(this.s.byHash.get(hash));
  }

  touch(tokenId: string, now: number): Promise<void> {
    this.s.touch.run(now, tokenId);
    return Promise.resolve();
  }

  stillAuthorized(p: Principal): Promise<boolean> {
    return Promise.resolve(this.s.valid.get(p) === 1);
  }
}
