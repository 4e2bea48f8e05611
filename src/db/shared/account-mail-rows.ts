import type { AccountMailRows, ClaimedAccountMail } from '../../domain/auth/account-mail.js';
import type { SqlExecutor } from './executor.js';
import { statement } from './statement.js';

type NewAccountMail = Parameters<AccountMailRows['insert']>[0];

const CLAIMED_COLUMNS = 'id, to_address AS "toAddress", kind, sealed_link AS "sealedLink", link_expires_at AS "linkExpiresAt", attempts';

const INSERT = statement<NewAccountMail>(
  `INSERT INTO account_emails (id, to_address, kind, sealed_link, link_expires_at, state, next_attempt_at, created_at)
   VALUES (:id, :toAddress, :kind, :sealedLink, :linkExpiresAt, 'pending', :createdAt, :createdAt)`,
);
const DUE_IDS = statement<{ now: number; limit: number }, { id: string }>(
  `SELECT id FROM account_emails WHERE state = 'pending' AND next_attempt_at <= :now ORDER BY next_attempt_at, id LIMIT :limit`,
);
const CLAIM = statement<{ id: string; now: number }, ClaimedAccountMail>(
  `UPDATE account_emails SET state = 'sending', claimed_at = :now, attempts = attempts + 1
   WHERE id = :id AND state = 'pending' AND next_attempt_at <= :now RETURNING ${CLAIMED_COLUMNS}`,
);
const SENT = statement<{ id: string; now: number }>(
  `UPDATE account_emails SET state = 'sent', sealed_link = NULL, finished_at = :now, last_error = NULL WHERE id = :id`,
);
const RETRY = statement<{ id: string; nextAttemptAt: number; error: string }>(
  `UPDATE account_emails SET state = 'pending', next_attempt_at = :nextAttemptAt, last_error = :error WHERE id = :id`,
);
const FAILED = statement<{ id: string; now: number; error: string }>(
  `UPDATE account_emails SET state = 'failed', sealed_link = NULL, finished_at = :now, last_error = :error WHERE id = :id`,
);
const NEXT_DUE = statement<Record<string, never>, { at: number | null }>(`SELECT min(next_attempt_at) AS at FROM account_emails WHERE state = 'pending'`);
const ANYTHING_DUE = statement<{ now: number }, { due: number }>(
  `SELECT 1 AS due FROM account_emails WHERE state = 'pending' AND next_attempt_at <= :now LIMIT 1`,
);
const RECOVER_INTERRUPTED = statement<{ claimedBefore: number; now: number; error: string }>(
  `UPDATE account_emails SET state = 'failed', sealed_link = NULL, finished_at = :now, last_error = :error
   WHERE state = 'sending' AND claimed_at <= :claimedBefore`,
);
const PRUNE = statement<{ before: number }>(`DELETE FROM account_emails WHERE state IN ('sent', 'failed') AND finished_at < :before`);

/**
 * The account e-mail outbox (account_emails), on either engine. On PostgreSQL every node runs the
 * worker; the claim's single UPDATE re-checks `state = 'pending'` on the row version it waited for,
 * so of two nodes only one sends a row.
 */
export class SqlAccountMailRows implements AccountMailRows {
  constructor(private readonly database: SqlExecutor) {}

  async insert(row: NewAccountMail): Promise<void> {
    const { id, toAddress, kind, sealedLink, linkExpiresAt, createdAt } = row;
    await this.database.run(INSERT, { id, toAddress, kind, sealedLink, linkExpiresAt, createdAt });
  }

  async dueIds(now: number, limit: number): Promise<string[]> {
    return (await this.database.all(DUE_IDS, { now, limit })).map((row) => row.id);
  }

  claim(id: string, now: number): Promise<ClaimedAccountMail | undefined> {
    return this.database.get(CLAIM, { id, now });
  }

  async sent(id: string, now: number): Promise<void> {
    await this.database.run(SENT, { id, now });
  }

  async retry(id: string, nextAttemptAt: number, error: string): Promise<void> {
    await this.database.run(RETRY, { id, nextAttemptAt, error });
  }

  async failed(id: string, now: number, error: string): Promise<void> {
    await this.database.run(FAILED, { id, now, error });
  }

  async nextDue(): Promise<number | null> {
    return (await this.database.value(NEXT_DUE, {})) ?? null;
  }

  async anythingDue(now: number): Promise<boolean> {
    return (await this.database.value(ANYTHING_DUE, { now })) !== undefined;
  }

  recoverInterrupted(claimedBefore: number, now: number, error: string): Promise<number> {
    return this.database.run(RECOVER_INTERRUPTED, { claimedBefore, now, error });
  }

  prune(before: number): Promise<number> {
    return this.database.run(PRUNE, { before });
  }
}
