import type pg from 'pg';
import type { Principal, TokenRow, TokenRows } from '../../domain/tokens.js';

/**
 * API tokens and the membership behind them, on PostgreSQL: the same three statements as the
 * SQLite rows (src/db/token-rows.ts). Nothing is cached in the node's memory, so a token revoked
 * or a member removed through any node fails on every node at its next request.
 */
export class PgTokenRows implements TokenRows {
  constructor(private readonly pool: pg.Pool) {}

  async byHash(hash: string): Promise<TokenRow | undefined> {
    const { rows } = await this.pool.query<TokenRow>(
      `SELECT t.id, t.user_id AS "userId", t.workspace_id AS "workspaceId", t.revoked_at AS "revokedAt",
              (EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = t.workspace_id AND m.user_id = t.user_id))::int AS member
       FROM api_tokens t WHERE t.token_hash = $1`,
      [hash],
    );
    return rows[0];
  }

  async touch(tokenId: string, now: number): Promise<void> {
    await this.pool.query('UPDATE api_tokens SET last_used_at = $1 WHERE id = $2', [now, tokenId]);
  }

  async stillAuthorized(p: Principal): Promise<boolean> {
    const { rows } = await this.pool.query<{ ok: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = $1 AND m.user_id = $2)
          AND EXISTS (SELECT 1 FROM api_tokens t WHERE t.id = $3 AND t.revoked_at IS NULL) AS ok`,
      [p.workspaceId, p.userId, p.tokenId],
    );
    return rows[0]?.ok === true;
  }
}
