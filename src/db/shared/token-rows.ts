import type { Principal, TokenRow, TokenRows } from '../../domain/tokens.js';
import type { SqlExecutor } from './executor.js';
import { statement } from './statement.js';

/**
 * A token row as authentication reads it, for the hash in `hashParam`: here, and inside PostgreSQL's
 * look-up that also counts the request (src/db/pg/token-budget.ts).
 * CASE, not a bare EXISTS: an integer on both engines (a bare EXISTS is 0/1 on SQLite, a boolean on PostgreSQL).
 */
export const tokenByHashSql = (hashParam: string) =>
  `SELECT t.id, t.user_id AS "userId", t.workspace_id AS "workspaceId", t.revoked_at AS "revokedAt", t.read_only AS "readOnly",
          CASE WHEN EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = t.workspace_id AND m.user_id = t.user_id) THEN 1 ELSE 0 END AS member
   FROM api_tokens t WHERE t.token_hash = ${hashParam}`;

const BY_HASH = statement<{ tokenHash: string }, TokenRow>(tokenByHashSql(':tokenHash'), { booleans: ['readOnly'], prepared: true });

const TOUCH = statement<{ tokenId: string; now: number }>('UPDATE api_tokens SET last_used_at = :now WHERE id = :tokenId');

const STILL_AUTHORIZED = statement<Principal, { ok: boolean }>(
  `SELECT EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = :workspaceId AND m.user_id = :userId)
      AND EXISTS (SELECT 1 FROM api_tokens t WHERE t.id = :tokenId AND t.revoked_at IS NULL) AS ok`,
  { booleans: ['ok'] },
);

/**
 * API tokens and the membership behind them, on either engine. Nothing is cached in the node's
 * memory, so a token revoked or a member removed through any node fails on every node at its next request.
 */
export class SqlTokenRows implements TokenRows {
  constructor(private readonly database: SqlExecutor) {}

  byHash(tokenHash: string): Promise<TokenRow | undefined> {
    return this.database.get(BY_HASH, { tokenHash });
  }

  async touch(tokenId: string, now: number): Promise<void> {
    await this.database.run(TOUCH, { tokenId, now });
  }

  async stillAuthorized(principal: Principal): Promise<boolean> {
    return (await this.database.value(STILL_AUTHORIZED, principal)) === true;
  }
}
