import type pg from 'pg';
import type { AccountMailRows, ClaimedAccountMail } from '../../domain/auth/account-mail.js';

const CLAIMED_COLUMNS = 'id, to_address AS "toAddress", kind, sealed_link AS "sealedLink", link_expires_at AS "linkExpiresAt", attempts';

/**
 * The account e-mail outbox (account_emails) on PostgreSQL: the same statements as the SQLite rows
 * (src/db/account-mail-rows.ts). Every node runs the worker; the claim's single UPDATE re-checks
 * `state = 'pending'` on the row version it waited for, so of two nodes only one sends a row.
 */
export class PgAccountMailRows implements AccountMailRows {
  constructor(private readonly pool: pg.Pool) {}

  async insert(row: Parameters<AccountMailRows['insert']>[0]): Promise<void> {
    await this.pool.query(
      `INSERT INTO account_emails (id, to_address, kind, sealed_link, link_expires_at, state, next_attempt_at, created_at)
       VALUES ($1, $2, $3, $4, $5, 'pending', $6, $6)`,
      [row.id, row.toAddress, row.kind, row.sealedLink, row.linkExpiresAt, row.createdAt],
    );
  }

  async dueIds(now: number, limit: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT id FROM account_emails WHERE state = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at, id LIMIT $2`,
      [now, limit],
    );
    return rows.map((r) => r.id);
  }

  async claim(id: string, now: number): Promise<ClaimedAccountMail | undefined> {
    const { rows } = await this.pool.query<ClaimedAccountMail>(
      `UPDATE account_emails SET state = 'sending', claimed_at = $1, attempts = attempts + 1
       WHERE id = $2 AND state = 'pending' AND next_attempt_at <= $1 RETURNING ${CLAIMED_COLUMNS}`,
      [now, id],
    );
    return rows[0];
  }

  async sent(id: string, now: number): Promise<void> {
    await this.pool.query(`UPDATE account_emails SET state = 'sent', sealed_link = NULL, finished_at = $1, last_error = NULL WHERE id = $2`, [now, id]);
  }

  async retry(id: string, nextAttemptAt: number, error: string): Promise<void> {
    await this.pool.query(`UPDATE account_emails SET state = 'pending', next_attempt_at = $1, last_error = $2 WHERE id = $3`, [nextAttemptAt, error, id]);
  }

  async failed(id: string, now: number, error: string): Promise<void> {
    await this.pool.query(`UPDATE account_emails SET state = 'failed', sealed_link = NULL, finished_at = $1, last_error = $2 WHERE id = $3`, [now, error, id]);
  }

  async nextDue(): Promise<number | null> {
    const { rows } = await this.pool.query<{ at: number | null }>(`SELECT min(next_attempt_at) AS at FROM account_emails WHERE state = 'pending'`);
    return rows[0]?.at ?? null;
  }

  async anythingDue(now: number): Promise<boolean> {
    const { rows } = await this.pool.query(`SELECT 1 FROM account_emails WHERE state = 'pending' AND next_attempt_at <= $1 LIMIT 1`, [now]);
    return rows.length > 0;
  }

  async recoverInterrupted(claimedBefore: number, now: number, error: string): Promise<number> {
    const res = await this.pool.query(
      `UPDATE account_emails SET state = 'failed', sealed_link = NULL, finished_at = $1, last_error = $2 WHERE state = 'sending' AND claimed_at <= $3`,
      [now, error, claimedBefore],
    );
    return res.rowCount ?? 0;
  }

  async prune(before: number): Promise<number> {
    return (await this.pool.query(`DELETE FROM account_emails WHERE state IN ('sent', 'failed') AND finished_at < $1`, [before])).rowCount ?? 0;
  }
}
