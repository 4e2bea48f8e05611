import type Database from 'better-sqlite3';

/** A pending job due for longer than this means the worker is not keeping up (or SMTP is down). */
export const OUTBOX_STALE_AFTER_MS = 5 * 60_000;

export interface OutboxBacklog {
  /** Notification jobs not yet fanned out (state `pending`). */
  pending: number;
  /** Of those, the ones due for longer than OUTBOX_STALE_AFTER_MS. */
  stale: number;
  /** Age of the longest-due pending job, 0 when none is due. */
  oldestDueMs: number;
}

/**
 * The one read of the outbox tables the operations side makes (w1's
 * `notification_jobs`; schema in src/db/schema/alerts.ts). Both counts are
 * range scans of `notification_jobs_due_idx (state, next_attempt_at)`, cheap
 * enough for every /readyz and every scrape.
 */
export function outboxBacklogQuery(sqlite: Database.Database): (now: number) => OutboxBacklog {
  const pending = sqlite.prepare(`SELECT count(*) FROM notification_jobs WHERE state = 'pending'`).pluck();
  const due = sqlite.prepare(
    `SELECT count(*) FILTER (WHERE next_attempt_at <= @staleBefore) AS stale, min(next_attempt_at) AS oldest
     FROM notification_jobs WHERE state = 'pending' AND next_attempt_at <= @now`,
  );
  return (now) => {
    const row = due.get({ now, staleBefore: now - OUTBOX_STALE_AFTER_MS }) as { stale: number; oldest: number | null };
    return { pending: pending.get() as number, stale: row.stale, oldestDueMs: row.oldest === null ? 0 : now - row.oldest };
  };
}
