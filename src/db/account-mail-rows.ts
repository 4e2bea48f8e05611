import type Database from 'better-sqlite3';
import type { AccountMailRows, ClaimedAccountMail } from '../domain/auth/account-mail.js';

const CLAIMED_COLUMNS = 'id, to_address AS toAddress, kind, sealed_link AS sealedLink, link_expires_at AS linkExpiresAt, attempts';

/** The account e-mail outbox (account_emails) in SQLite; the PostgreSQL twin is src/db/pg/account-mail-rows.ts. */
export class SqliteAccountMailRows implements AccountMailRows {
  private readonly s;

  constructor(sqlite: Database.Database) {
    this.s = {
      insert: sqlite.prepare<[string, string, string, string, number, number, number]>(
        `INSERT INTO account_emails (id, to_address, kind, sealed_link, link_expires_at, state, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)`,
      ),
      dueIds: sqlite
        .prepare<[number, number], string>(`SELECT id FROM account_emails WHERE state = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`)
        .pluck(),
      claim: sqlite.prepare<[number, string, number], ClaimedAccountMail>(
        `UPDATE account_emails SET state = 'sending', claimed_at = ?, attempts = attempts + 1
         WHERE id = ? AND state = 'pending' AND next_attempt_at <= ? RETURNING ${CLAIMED_COLUMNS}`,
      ),
      sent: sqlite.prepare<[number, string]>(`UPDATE account_emails SET state = 'sent', sealed_link = NULL, finished_at = ?, last_error = NULL WHERE id = ?`),
      retry: sqlite.prepare<[number, string, string]>(`UPDATE account_emails SET state = 'pending', next_attempt_at = ?, last_error = ? WHERE id = ?`),
      failed: sqlite.prepare<[number, string, string]>(`UPDATE account_emails SET state = 'failed', sealed_link = NULL, finished_at = ?, last_error = ? WHERE id = ?`),
      nextDue: sqlite.prepare<[], number | null>(`SELECT min(next_attempt_at) FROM account_emails WHERE state = 'pending'`).pluck(),
      anythingDue: sqlite.prepare<[number], number>(`SELECT 1 FROM account_emails WHERE state = 'pending' AND next_attempt_at <= ? LIMIT 1`).pluck(),
      recover: sqlite.prepare<[number, string, number]>(
        `UPDATE account_emails SET state = 'failed', sealed_link = NULL, finished_at = ?, last_error = ? WHERE state = 'sending' AND claimed_at <= ?`,
      ),
      prune: sqlite.prepare<[number]>(`DELETE FROM account_emails WHERE state IN ('sent', 'failed') AND finished_at < ?`),
    };
  }

  async insert(row: Parameters<AccountMailRows['insert']>[0]): Promise<void> {
    this.s.insert.run(row.id, row.toAddress, row.kind, row.sealedLink, row.linkExpiresAt, row.createdAt, row.createdAt);
  }

  async dueIds(now: number, limit: number): Promise<string[]> {
    return this.s.dueIds.all(now, limit);
  }

  async claim(id: string, now: number): Promise<ClaimedAccountMail | undefined> {
    return this.s.claim.get(now, id, now);
  }

  async sent(id: string, now: number): Promise<void> {
    this.s.sent.run(now, id);
  }

  async retry(id: string, nextAttemptAt: number, error: string): Promise<void> {
    this.s.retry.run(nextAttemptAt, error, id);
  }

  async failed(id: string, now: number, error: string): Promise<void> {
    this.s.failed.run(now, error, id);
  }

  async nextDue(): Promise<number | null> {
    return this.s.nextDue.get() ?? null;
  }

  async anythingDue(now: number): Promise<boolean> {
    return this.s.anythingDue.get(now) !== undefined;
  }

  async recoverInterrupted(claimedBefore: number, now: number, error: string): Promise<number> {
    return this.s.recover.run(now, error, claimedBefore).changes;
  }

  async prune(before: number): Promise<number> {
    return this.s.prune.run(before).changes;
  }
}
