import type { AlertRow, AttachmentRow } from '../../domain/alert-rows.js';
import type { FanOutSubject, FloodWindow, OutboxDelivery, OutboxDigest, OutboxJob } from '../../domain/outbox-store.js';
import { ALERT_SELECT, ATTACHMENT_SELECT } from './alert-columns.js';
import { byDialect, perEngine, statement } from './statement.js';

/**
 * The e-mail outbox's statements (src/db/shared/outbox.ts), written once. The few that differ are
 * PostgreSQL's row locks, which SQLite's single writer makes moot (each claim there is one
 * BEGIN IMMEDIATE), and its send lease.
 */

type Delivery = { jobId: number; userId: string };

export const DUE_JOBS = statement<{ now: number; limit: number }, { id: number }>(
  `SELECT id FROM notification_jobs WHERE state = 'pending' AND next_attempt_at <= :now ORDER BY id LIMIT :limit`,
);
const PENDING_JOB_SQL = `SELECT id, alert_id AS "alertId", channel_id AS "channelId", kind, created_at AS "createdAt", attempts
   FROM notification_jobs WHERE id = :jobId AND state = 'pending'`;
/** PostgreSQL: a job another node is fanning out right now is left to it. */
export const PENDING_JOB = perEngine<{ jobId: number }, OutboxJob & { attempts: number }>({
  sqlite: PENDING_JOB_SQL,
  pg: `${PENDING_JOB_SQL} FOR UPDATE SKIP LOCKED`,
});
/** What the fan-out decides from: the level, and what a silence matches on (src/domain/silences.ts). */
export const ALERT_SUBJECT = statement<{ alertId: string }, FanOutSubject>(
  `SELECT channel_id AS "channelId", level, title, source, fields_json AS "fieldsJson", silenced_by AS "silencedBy" FROM alerts WHERE id = :alertId`,
);
/** Records which silence muted the alert's latest notification (null: none did). */
export const SET_SILENCED_BY = statement<{ alertId: string; silenceId: string | null; comment: string | null }>(
  'UPDATE alerts SET silenced_by = :silenceId, silence_comment = :comment WHERE id = :alertId',
);
export const INSERT_DELIVERIES = byDialect<{ jobId: number; channelId: string; alertId: string; now: number; userIds: readonly string[] }>(
  (dialect) => `INSERT INTO notification_deliveries (job_id, user_id, channel_id, alert_id, state, attempts, next_attempt_at, created_at, updated_at)
   SELECT CAST(:jobId AS BIGINT), value, CAST(:channelId AS TEXT), CAST(:alertId AS TEXT), 'pending', 0, CAST(:now AS BIGINT), CAST(:now AS BIGINT), CAST(:now AS BIGINT)
   FROM ${dialect.listOf('userIds', 'text')} AS recipients WHERE true
   ON CONFLICT DO NOTHING`,
);
/** Web Push: one row per subscription of each user, in the fan-out's transaction (src/db/shared/push-outbox.ts sends them). */
export const INSERT_PUSHES = byDialect<{ jobId: number; channelId: string; alertId: string; kind: string; now: number; userIds: readonly string[] }>(
  (dialect) => `INSERT INTO push_deliveries (job_id, subscription_id, user_id, channel_id, alert_id, kind, state, attempts, next_attempt_at, created_at, updated_at)
   SELECT CAST(:jobId AS BIGINT), s.id, s.user_id, CAST(:channelId AS TEXT), CAST(:alertId AS TEXT), CAST(:kind AS TEXT), 'pending', 0,
          CAST(:now AS BIGINT), CAST(:now AS BIGINT), CAST(:now AS BIGINT)
   FROM push_subscriptions s WHERE s.user_id IN ${dialect.listOf('userIds', 'text')}
   ON CONFLICT DO NOTHING`,
);
export const JOB_DONE = statement<{ jobId: number; note: string | null }>(
  `UPDATE notification_jobs SET state = 'done', attempts = attempts + 1, last_error = :note WHERE id = :jobId`,
);
export const JOB_RETRY = statement<{ jobId: number; state: string; attempts: number; at: number; reason: string }>(
  `UPDATE notification_jobs SET state = :state, attempts = :attempts, next_attempt_at = :at, last_error = :reason WHERE id = :jobId`,
);

export const DUE_DELIVERIES = statement<{ now: number; limit: number }, Delivery>(
  `SELECT job_id AS "jobId", user_id AS "userId" FROM notification_deliveries
   WHERE state = 'pending' AND next_attempt_at <= :now ORDER BY next_attempt_at, job_id LIMIT :limit`,
);
const CLAIMABLE_DELIVERY_SQL = `SELECT d.job_id AS "jobId", d.user_id AS "userId", d.channel_id AS "channelId", d.alert_id AS "alertId", d.attempts, j.kind
   FROM notification_deliveries d LEFT JOIN notification_jobs j ON j.id = d.job_id
   WHERE d.job_id = :jobId AND d.user_id = :userId AND d.state = 'pending'`;
/** PostgreSQL: a row another node's claim holds is skipped, and this claim decides and writes while holding its own. */
export const CLAIMABLE_DELIVERY = perEngine<Delivery, OutboxDelivery>({
  sqlite: CLAIMABLE_DELIVERY_SQL,
  pg: `${CLAIMABLE_DELIVERY_SQL} FOR UPDATE OF d SKIP LOCKED`,
});
export const SET_DELIVERY = statement<Delivery & { state: string; error: string | null; digestId: number | null; now: number }>(
  `UPDATE notification_deliveries SET state = :state, last_error = :error, digest_id = COALESCE(:digestId, digest_id), updated_at = :now
   WHERE job_id = :jobId AND user_id = :userId`,
);
export const CLAIM_DELIVERY = statement<Delivery & { now: number }>(
  `UPDATE notification_deliveries SET state = 'sending', attempts = attempts + 1, updated_at = :now WHERE job_id = :jobId AND user_id = :userId AND state = 'pending'`,
);

export const DUE_DIGESTS = statement<{ now: number; limit: number }, { id: number }>(
  `SELECT id FROM notification_digests WHERE state = 'pending' AND next_attempt_at <= :now ORDER BY next_attempt_at, id LIMIT :limit`,
);
const CLAIMABLE_DIGEST_SQL = `SELECT id, user_id AS "userId", channel_id AS "channelId", window_start AS "windowStart", window_end AS "windowEnd", attempts
   FROM notification_digests WHERE id = :digestId AND state = 'pending'`;
export const CLAIMABLE_DIGEST = perEngine<{ digestId: number }, OutboxDigest>({
  sqlite: CLAIMABLE_DIGEST_SQL,
  pg: `${CLAIMABLE_DIGEST_SQL} FOR UPDATE SKIP LOCKED`,
});
export const DIGEST_ALERTS = statement<{ digestId: number }, AlertRow>(
  `SELECT ${ALERT_SELECT} FROM alerts a WHERE a.id IN (SELECT alert_id FROM notification_deliveries WHERE digest_id = :digestId) ORDER BY a.id`,
);
export const SKIP_DIGEST = statement<{ digestId: number; reason: string; now: number }>(
  `UPDATE notification_digests SET state = 'skipped', last_error = :reason, updated_at = :now WHERE id = :digestId`,
);
export const CLAIM_DIGEST = statement<{ digestId: number; now: number }>(
  `UPDATE notification_digests SET state = 'sending', attempts = attempts + 1, updated_at = :now WHERE id = :digestId AND state = 'pending'`,
);

export const WINDOW = statement<{ userId: string; channelId: string }, Omit<FloodWindow, 'digestState'>>(
  `SELECT window_start AS "windowStart", window_end AS "windowEnd", sent, digest_id AS "digestId"
   FROM notification_flood_windows WHERE user_id = :userId AND channel_id = :channelId`,
);
const DIGEST_STATE_SQL = 'SELECT state FROM notification_digests WHERE id = :digestId';
/** PostgreSQL: a digest another node is claiming is waited for, then seen `sending`. */
export const DIGEST_STATE = perEngine<{ digestId: number }, { state: string }>({ sqlite: DIGEST_STATE_SQL, pg: `${DIGEST_STATE_SQL} FOR SHARE` });
export const OPEN_WINDOW = statement<{ userId: string; channelId: string; windowStart: number; windowEnd: number }>(
  `INSERT INTO notification_flood_windows (user_id, channel_id, window_start, window_end, sent, digest_id) VALUES (:userId, :channelId, :windowStart, :windowEnd, 1, NULL)
   ON CONFLICT (user_id, channel_id) DO UPDATE SET window_start = excluded.window_start, window_end = excluded.window_end, sent = 1, digest_id = NULL`,
);
export const COUNT_IN_WINDOW = statement<{ userId: string; channelId: string }>(
  'UPDATE notification_flood_windows SET sent = sent + 1 WHERE user_id = :userId AND channel_id = :channelId',
);
// Due when the window closes.
export const INSERT_DIGEST = statement<{ userId: string; channelId: string; windowStart: number; windowEnd: number; now: number }, { id: number }>(
  `INSERT INTO notification_digests (user_id, channel_id, window_start, window_end, state, attempts, next_attempt_at, created_at, updated_at)
   VALUES (:userId, :channelId, :windowStart, :windowEnd, 'pending', 0, :windowEnd, :now, :now) RETURNING id`,
);
export const SET_WINDOW_DIGEST = statement<{ userId: string; channelId: string; digestId: number }>(
  'UPDATE notification_flood_windows SET digest_id = :digestId WHERE user_id = :userId AND channel_id = :channelId',
);

export const ATTACHMENTS_OF = statement<{ alertId: string }, AttachmentRow>(
  `SELECT ${ATTACHMENT_SELECT} FROM alert_attachments WHERE alert_id = :alertId ORDER BY position`,
);
export const STARTED_MESSAGE_ID = statement<{ alertId: string; userId: string }, { messageId: string }>(
  `SELECT d.message_id AS "messageId" FROM notification_deliveries d JOIN notification_jobs j ON j.id = d.job_id
   WHERE j.alert_id = :alertId AND j.kind = 'workflow.started' AND d.user_id = :userId AND d.message_id IS NOT NULL LIMIT 1`,
);
export const NEXT_DUE = statement<{ mail: boolean }, { due: number | null }>(
  `SELECT min(due) AS due FROM (
     SELECT min(next_attempt_at) AS due FROM notification_jobs WHERE state = 'pending'
     UNION ALL SELECT min(next_attempt_at) FROM notification_deliveries WHERE state = 'pending' AND CAST(:mail AS BOOLEAN)
     UNION ALL SELECT min(next_attempt_at) FROM notification_digests WHERE state = 'pending' AND CAST(:mail AS BOOLEAN)) AS pending`,
);
export const ANYTHING_DUE = statement<{ now: number; mail: boolean }, { due: boolean }>(
  `SELECT EXISTS (SELECT 1 FROM notification_jobs WHERE state = 'pending' AND next_attempt_at <= :now)
     OR (CAST(:mail AS BOOLEAN) AND (EXISTS (SELECT 1 FROM notification_deliveries WHERE state = 'pending' AND next_attempt_at <= :now)
                                  OR EXISTS (SELECT 1 FROM notification_digests WHERE state = 'pending' AND next_attempt_at <= :now))) AS due`,
  { booleans: ['due'] },
);

/**
 * Rows left `sending`, recorded failed (never resent). SQLite's one process: every one at start-up
 * was interrupted. PostgreSQL: a `sending` row is leased to the node that claimed it (its
 * `updated_at` is the claim time: nothing else writes it until its outcome), so only rows claimed
 * before `claimedBefore` are taken, never one in another live node's SMTP conversation right now.
 * A send that outlives its lease writes its real outcome over `failed`, which resends nothing either.
 */
const recoverIn = (table: 'notification_deliveries' | 'notification_digests') => {
  const sql = `UPDATE ${table} SET state = 'failed', last_error = :reason, updated_at = :now WHERE state = 'sending'`;
  return perEngine<{ reason: string; now: number; claimedBefore: number }>({ sqlite: sql, pg: `${sql} AND updated_at < :claimedBefore` });
};
export const RECOVER_DELIVERIES = recoverIn('notification_deliveries');
export const RECOVER_DIGESTS = recoverIn('notification_digests');

/** An attempt's outcome, per outbox table (delivery rows and digests share the send path). */
const outcomes = <Target extends object>(table: string, where: string) => ({
  sent: statement<Target & { messageId: string; now: number }>(
    `UPDATE ${table} SET state = 'sent', message_id = :messageId, last_error = NULL, updated_at = :now WHERE ${where}`,
  ),
  failed: statement<Target & { reason: string; now: number }>(`UPDATE ${table} SET state = 'failed', last_error = :reason, updated_at = :now WHERE ${where}`),
  retry: statement<Target & { at: number; reason: string; now: number }>(
    `UPDATE ${table} SET state = 'pending', next_attempt_at = :at, last_error = :reason, updated_at = :now WHERE ${where}`,
  ),
});
export const DELIVERY_OUTCOME = outcomes<Delivery>('notification_deliveries', 'job_id = :jobId AND user_id = :userId');
export const DIGEST_OUTCOME = outcomes<{ digestId: number }>('notification_digests', 'id = :digestId');

export const PRUNE_DELIVERIES = statement<{ before: number }>(
  `DELETE FROM notification_deliveries WHERE state IN ('sent', 'folded', 'skipped', 'failed')
   AND job_id IN (SELECT id FROM notification_jobs WHERE state IN ('done', 'failed') AND created_at < :before)`,
);
export const PRUNE_JOBS = statement<{ before: number }>(
  `DELETE FROM notification_jobs WHERE state IN ('done', 'failed') AND created_at < :before
   AND NOT EXISTS (SELECT 1 FROM notification_deliveries d WHERE d.job_id = notification_jobs.id)`,
);
export const PRUNE_DIGESTS = statement<{ before: number }>(`DELETE FROM notification_digests WHERE state IN ('sent', 'skipped', 'failed') AND updated_at < :before`);
export const PRUNE_WINDOWS = statement<{ before: number }>('DELETE FROM notification_flood_windows WHERE window_end < :before');
