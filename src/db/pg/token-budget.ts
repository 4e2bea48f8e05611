import type pg from 'pg';
import type { CountingLookUp, TokenRow } from '../../domain/tokens.js';
import { tokenByHashSql } from '../shared/token-rows.js';
import { prepared } from './prepared.js';
import type { PgRateLimiter } from './rate-limits.js';

/**
 * The token's row and one hit on its API budget in one statement: the count is the rate limiter's
 * upsert (src/db/pg/rate-limits.ts), run only for a usable token (not revoked, its user a member).
 * A data-modifying CTE runs once whether or not the outer query reads it; here the outer query reads
 * its count. $2 is the limiter's key prefix, so the count lands on the row the plain limiter would use.
 */
const LOOK_UP_AND_HIT = prepared(
  'token_look_up_and_hit',
  `WITH t AS (${tokenByHashSql('$1')}),
  hit AS (
    INSERT INTO rate_limits AS r (key, window_start, count)
    SELECT $2 || t.id, $3, $4 FROM t WHERE t."revokedAt" IS NULL AND t.member = 1
    ON CONFLICT (key, window_start) DO UPDATE SET count = r.count + excluded.count WHERE r.count < $5
    RETURNING count)
  SELECT t.*, (SELECT count FROM hit) AS "hitCount" FROM t`,
);

type Counted = TokenRow & { hitCount: number | null };

/**
 * A look-up that spends the budget of `limiter` (the "api" scope), batched as the limiter batches
 * its hits: requests presenting the same token together share one statement, so a client's burst
 * does not queue its pool connections behind the budget's row lock.
 */
export function countingTokenLookUp(pool: pg.Pool, limiter: PgRateLimiter): CountingLookUp {
  const prefix = `${limiter.scope}:`;
  return async (tokenHash) => {
    const { decision, value } = await limiter.spend(`#${tokenHash}`, async (n, start, limit) => {
      const { rows } = await pool.query<Counted>(LOOK_UP_AND_HIT([tokenHash, prefix, start, n, limit]));
      const found = rows[0];
      if (!found) return { total: undefined, value: undefined };
      const { hitCount, ...row } = found;
      return { total: hitCount ?? undefined, value: { ...row, readOnly: row.readOnly === true } satisfies TokenRow };
    });
    return { row: value, rate: decision };
  };
}
