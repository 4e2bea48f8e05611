import type { AlertLevel } from '../../domain/alert-rows.js';
import type { AlertStatus } from '../../domain/alert-lifecycle.js';
import type { Recipient } from '../../domain/notification-preferences.js';
import type { QuietHold } from '../../domain/outbox-store.js';
import type { HeldAlert, QuietDigest, QuietDigestDecide, QuietDigestOutbox, QuietDigestOwner } from '../../domain/quiet-digests.js';
import { quietHoursOf } from '../../domain/quiet-hours.js';
import type { SqlExecutor, Step, TransactionSteps } from './executor.js';
import { RECIPIENT } from './preference-rows.js';
import { perEngine, statement } from './statement.js';

/** As the e-mail outbox's send lease (src/db/shared/outbox.ts): longer than any SMTP conversation lasts. */
const QUIET_SEND_LEASE_MS = 30 * 60_000;


const ENSURE_DIGEST = statement<{ userId: string; dueAt: number; now: number }>(
  `INSERT INTO quiet_digests (user_id, due_at, state, attempts, next_attempt_at, created_at, updated_at)
   VALUES (:userId, :dueAt, 'pending', 0, :dueAt, :now, :now) ON CONFLICT (user_id, due_at) DO NOTHING`,
);
const DIGEST_FOR_HOLD_SQL = 'SELECT id, state FROM quiet_digests WHERE user_id = :userId AND due_at = :dueAt';
/** PostgreSQL: a digest another node is claiming is waited for, then seen `sending` (the alert is then delivered as usual). */
const DIGEST_FOR_HOLD = perEngine<{ userId: string; dueAt: number }, { id: number; state: string }>({
  sqlite: DIGEST_FOR_HOLD_SQL,
  pg: `${DIGEST_FOR_HOLD_SQL} FOR SHARE`,
});
const INSERT_HOLD = statement<{ digestId: number; jobId: number; alertId: string; channelId: string; now: number }>(
  `INSERT INTO quiet_holds (digest_id, job_id, alert_id, channel_id, created_at) VALUES (:digestId, :jobId, :alertId, :channelId, :now)
   ON CONFLICT DO NOTHING`,
);

/**
 * Inside the fan-out's transaction: each person's alert joins the digest of their window (one row
 * per person and window end, whichever node writes first). Returns the people whose digest has
 * already left (a fan-out that ran late): they get the alert as usual instead of losing it.
 */
export function* holdSteps(tx: TransactionSteps, holds: readonly QuietHold[], job: { id: number; alertId: string; channelId: string }, now: number): Step<string[]> {
  const late: string[] = [];
  for (const { userId, until } of holds) {
    yield* tx.run(ENSURE_DIGEST, { userId, dueAt: until, now });
    const digest = yield* tx.get(DIGEST_FOR_HOLD, { userId, dueAt: until });
    if (!digest || digest.state !== 'pending') {
      late.push(userId);
      continue;
    }
    yield* tx.run(INSERT_HOLD, { digestId: digest.id, jobId: job.id, alertId: job.alertId, channelId: job.channelId, now });
  }
  return late;
}

const DUE = statement<{ now: number; limit: number }, { id: number }>(
  `SELECT id FROM quiet_digests WHERE state = 'pending' AND next_attempt_at <= :now ORDER BY next_attempt_at, id LIMIT :limit`,
);
const CLAIMABLE_SQL = `SELECT id, user_id AS "userId", due_at AS "dueAt", attempts FROM quiet_digests WHERE id = :id AND state = 'pending'`;
const CLAIMABLE = perEngine<{ id: number }, QuietDigest>({ sqlite: CLAIMABLE_SQL, pg: `${CLAIMABLE_SQL} FOR UPDATE SKIP LOCKED` });
const OWNER = statement<
  { userId: string },
  { email: string; name: string; emailVerified: boolean; quietZone: string | null; quietStart: number | null; quietEnd: number | null; quietMinLevel: string | null }
>(
  `SELECT u.email, u.name, CASE WHEN u.email_verified THEN 1 ELSE 0 END AS "emailVerified", q.time_zone AS "quietZone",
          q.start_minute AS "quietStart", q.end_minute AS "quietEnd", q.min_level AS "quietMinLevel"
   FROM users u LEFT JOIN quiet_hours q ON q.user_id = u.id WHERE u.id = :userId`,
  { booleans: ['emailVerified'] },
);
type HeldRow = {
  alertId: string;
  channelId: string;
  heldAt: number;
  title: string | null;
  level: AlertLevel | null;
  status: AlertStatus | null;
  createdAt: number | null;
  slug: string | null;
  channelName: string | null;
  workspaceName: string | null;
};
const HELD = statement<{ id: number }, HeldRow>(
  `SELECT h.alert_id AS "alertId", h.channel_id AS "channelId", h.created_at AS "heldAt", a.title, a.level, a.status, a.created_at AS "createdAt",
          c.slug, c.name AS "channelName", w.name AS "workspaceName"
   FROM quiet_holds h
   LEFT JOIN alerts a ON a.id = h.alert_id
   LEFT JOIN channels c ON c.id = h.channel_id
   LEFT JOIN workspaces w ON w.id = c.workspace_id
   WHERE h.digest_id = :id ORDER BY h.created_at, h.job_id`,
);
const SKIP = statement<{ id: number; reason: string; now: number }>(`UPDATE quiet_digests SET state = 'skipped', last_error = :reason, updated_at = :now WHERE id = :id`);
const CLAIM = statement<{ id: number; now: number }>(
  `UPDATE quiet_digests SET state = 'sending', attempts = attempts + 1, updated_at = :now WHERE id = :id AND state = 'pending'`,
);
const SENT = statement<{ id: number; messageId: string; now: number }>(
  `UPDATE quiet_digests SET state = 'sent', message_id = :messageId, last_error = NULL, updated_at = :now WHERE id = :id`,
);
const FAILED = statement<{ id: number; reason: string; now: number }>(`UPDATE quiet_digests SET state = 'failed', last_error = :reason, updated_at = :now WHERE id = :id`);
const RETRY = statement<{ id: number; at: number; reason: string; now: number }>(
  `UPDATE quiet_digests SET state = 'pending', next_attempt_at = :at, last_error = :reason, updated_at = :now WHERE id = :id`,
);
const NEXT_DUE = statement<Record<string, never>, { due: number | null }>(`SELECT min(next_attempt_at) AS due FROM quiet_digests WHERE state = 'pending'`);
const ANYTHING_DUE = statement<{ now: number }, { due: boolean }>(
  `SELECT EXISTS (SELECT 1 FROM quiet_digests WHERE state = 'pending' AND next_attempt_at <= :now) AS due`,
  { booleans: ['due'] },
);
const RECOVER_SQL = `UPDATE quiet_digests SET state = 'failed', last_error = :reason, updated_at = :now WHERE state = 'sending'`;
const RECOVER = perEngine<{ reason: string; now: number; claimedBefore: number }>({ sqlite: RECOVER_SQL, pg: `${RECOVER_SQL} AND updated_at < :claimedBefore` });
const PRUNE_HOLDS = statement<{ before: number }>(
  `DELETE FROM quiet_holds WHERE digest_id IN (SELECT id FROM quiet_digests WHERE state IN ('sent', 'skipped', 'failed') AND updated_at < :before)`,
);
const PRUNE_DIGESTS = statement<{ before: number }>(`DELETE FROM quiet_digests WHERE state IN ('sent', 'skipped', 'failed') AND updated_at < :before`);

/** The quiet-hours digests on either engine; each method is one transaction, as in src/db/shared/outbox.ts. */
export class SqlQuietDigests implements QuietDigestOutbox {
  constructor(
    private readonly database: SqlExecutor,
    private readonly sendLeaseMs = QUIET_SEND_LEASE_MS,
  ) {}

  async due(now: number, limit: number) {
    return (await this.database.all(DUE, { now, limit })).map((r) => r.id);
  }

  claim<T>(id: number, now: number, decide: QuietDigestDecide<T>) {
    return this.database.transaction(function* (tx): Step<{ value: T; digest: QuietDigest; attempts: number } | null> {
      const digest = yield* tx.get(CLAIMABLE, { id });
      if (!digest) return null;
      const ownerRow = yield* tx.get(OWNER, { userId: digest.userId });
      const owner: QuietDigestOwner | undefined = ownerRow && { email: ownerRow.email, name: ownerRow.name, emailVerified: ownerRow.emailVerified, quiet: quietHoursOf(ownerRow) };
      const rows = yield* tx.all(HELD, { id });
      // The recipient rule once per channel, read in this transaction.
      const rules = new Map<string, Recipient | undefined>();
      for (const channelId of new Set(rows.map((r) => r.channelId))) rules.set(channelId, yield* tx.get(RECIPIENT, { channelId, userId: digest.userId }));
      const held: HeldAlert[] = rows.map((r) => ({
        alertId: r.alertId,
        channelId: r.channelId,
        heldAt: Number(r.heldAt),
        alert: r.level === null ? null : { title: r.title ?? '', level: r.level, status: r.status ?? 'open', createdAt: Number(r.createdAt) },
        channel: r.slug === null ? null : { slug: r.slug, name: r.channelName ?? r.slug, workspaceName: r.workspaceName ?? '' },
        recipient: rules.get(r.channelId),
      }));
      const decision = decide({ digest, owner, held });
      if ('skip' in decision) {
        yield* tx.run(SKIP, { id, reason: decision.skip, now });
        return null;
      }
      yield* tx.run(CLAIM, { id, now });
      return { value: decision.send, digest, attempts: digest.attempts + 1 };
    });
  }

  async recordSent(id: number, messageId: string, now: number) {
    await this.database.run(SENT, { id, messageId, now });
  }

  async recordFailed(id: number, reason: string, now: number) {
    await this.database.run(FAILED, { id, reason, now });
  }

  async recordRetry(id: number, at: number, reason: string, now: number) {
    await this.database.run(RETRY, { id, at, reason, now });
  }

  async nextDue() {
    const due = await this.database.value(NEXT_DUE, {});
    return due === null || due === undefined ? null : Number(due);
  }

  async anythingDue(now: number) {
    return (await this.database.value(ANYTHING_DUE, { now })) === true;
  }

  recoverInterrupted(reason: string, now: number) {
    return this.database.run(RECOVER, { reason, now, claimedBefore: now - this.sendLeaseMs });
  }

  async prune(before: number) {
    await this.database.transaction(function* (tx) {
      yield* tx.run(PRUNE_HOLDS, { before });
      yield* tx.run(PRUNE_DIGESTS, { before });
    });
  }
}
