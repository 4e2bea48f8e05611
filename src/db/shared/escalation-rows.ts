import type { EscalationDecide, EscalationRows } from '../../domain/escalation/escalation-rows.js';
import type { EscalationMark } from '../../domain/escalation/escalation-notice.js';
import type { EscalationPolicy, EscalationSend, EscalationState, EscalationSubject } from '../../domain/escalation/escalation-steps.js';
import type { SqlExecutor, Step, TransactionSteps } from './executor.js';
import { perEngine, statement } from './statement.js';

// Escalation per channel, written once for both engines: the policies, each open alert's place in
// its steps, the change-log cursor, and the step's notification job (docs/handling-alerts.md).

const CURSOR = 'change-log';

interface PolicyRow extends Omit<EscalationPolicy, 'then'> {
  thenJson: string | null;
}

const POLICY = statement<{ channelId: string }, PolicyRow>(
  `SELECT channel_id AS "channelId", min_level AS "minLevel", after_ms AS "afterMs", every_ms AS "everyMs", times, then_json AS "thenJson",
     updated_by AS "updatedBy", updated_at AS "updatedAt" FROM escalation_policies WHERE channel_id = :channelId`,
);
const UPSERT_POLICY = statement<PolicyRow>(
  `INSERT INTO escalation_policies (channel_id, min_level, after_ms, every_ms, times, then_json, updated_by, updated_at)
   VALUES (:channelId, :minLevel, :afterMs, :everyMs, :times, CAST(:thenJson AS TEXT), CAST(:updatedBy AS TEXT), :updatedAt)
   ON CONFLICT (channel_id) DO UPDATE SET min_level = excluded.min_level, after_ms = excluded.after_ms, every_ms = excluded.every_ms,
     times = excluded.times, then_json = excluded.then_json, updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
);
/** The cursor starts at the log's end when the first policy is set: alerts older than escalation are not escalated (`WHERE true`: SQLite's upsert-after-SELECT rule). */
const START_CURSOR = statement<Record<string, never>>(
  `INSERT INTO escalation_cursor (name, last_event_id) SELECT '${CURSOR}', COALESCE(max(id), 0) FROM alert_events WHERE true
   ON CONFLICT (name) DO NOTHING`,
);
/** A changed policy: every alert escalating on the channel is looked at again at the next pass, under the new rules. */
const LOOK_AGAIN = statement<{ channelId: string }>('UPDATE alert_escalations SET due_at = 0 WHERE channel_id = :channelId');
const DELETE_POLICY = statement<{ channelId: string }>('DELETE FROM escalation_policies WHERE channel_id = :channelId');
const DELETE_CHANNEL_STATES = statement<{ channelId: string }>('DELETE FROM alert_escalations WHERE channel_id = :channelId');

const CURSOR_AT = statement<Record<string, never>, { lastEventId: number }>(`SELECT last_event_id AS "lastEventId" FROM escalation_cursor WHERE name = '${CURSOR}'`);
const MOVE_CURSOR = statement<{ upTo: number }>(`UPDATE escalation_cursor SET last_event_id = :upTo WHERE name = '${CURSOR}' AND last_event_id < :upTo`);
const BATCH_END = statement<{ after: number; limit: number }, { upTo: number | null }>(
  'SELECT max(id) AS "upTo" FROM (SELECT id FROM alert_events WHERE id > :after ORDER BY id LIMIT :limit) batch',
);
const CHANGED = statement<{ after: number; upTo: number }, { alertId: string }>(
  `SELECT DISTINCT e.alert_id AS "alertId" FROM alert_events e JOIN escalation_policies p ON p.channel_id = e.channel_id
   WHERE e.id > :after AND e.id <= :upTo AND e.type <> 'alert.deleted'`,
);

const DUE = statement<{ now: number; limit: number }, { alertId: string }>(
  'SELECT alert_id AS "alertId" FROM alert_escalations WHERE due_at <= :now ORDER BY due_at LIMIT :limit',
);
const NEXT_DUE = statement<Record<string, never>, { next: number | null }>('SELECT min(due_at) AS next FROM alert_escalations');

const SUBJECT_SQL = `SELECT channel_id AS "channelId", kind, level, status, snoozed_until AS "snoozedUntil", silenced_by AS "silencedBy", created_at AS "createdAt"
   FROM alerts WHERE id = :alertId`;
/** The alert row is locked on PostgreSQL: a person's change (which locks it too) commits before this look or after it. */
const SUBJECT = perEngine<{ alertId: string }, Omit<EscalationSubject, 'reopenedAt'> & { kind: string }>({ sqlite: SUBJECT_SQL, pg: `${SUBJECT_SQL} FOR UPDATE` });
const REOPENED_AT = statement<{ alertId: string }, { at: number | null }>(
  `SELECT max(created_at) AS at FROM alert_history WHERE alert_id = :alertId AND action IN ('reopened', 'unsnoozed')`,
);
const STATE = statement<{ alertId: string }, EscalationState>('SELECT armed_at AS "armedAt", step, due_at AS "dueAt" FROM alert_escalations WHERE alert_id = :alertId');
const SAVE_STATE = statement<EscalationState & { alertId: string; channelId: string }>(
  `INSERT INTO alert_escalations (alert_id, channel_id, armed_at, step, due_at) VALUES (:alertId, :channelId, :armedAt, :step, CAST(:dueAt AS BIGINT))
   ON CONFLICT (alert_id) DO UPDATE SET channel_id = excluded.channel_id, armed_at = excluded.armed_at, step = excluded.step, due_at = excluded.due_at`,
);
const DROP_STATE = statement<{ alertId: string }>('DELETE FROM alert_escalations WHERE alert_id = :alertId');
const OWNERS_AND_ADMINS = statement<{ channelId: string }, { userId: string }>(
  `SELECT m.user_id AS "userId" FROM memberships m JOIN channels c ON c.workspace_id = m.workspace_id
   WHERE c.id = :channelId AND m.role IN ('owner', 'admin') ORDER BY m.user_id`,
);
/** The step's job in the e-mail and push outbox: fanned out, flood-free, and labelled "Escalation n of m" there. */
const INSERT_JOB = statement<{ alertId: string; channelId: string; now: number; step: number; steps: number; toJson: string | null }>(
  `INSERT INTO notification_jobs (alert_id, channel_id, kind, state, attempts, next_attempt_at, created_at, escalation_step, escalation_steps, escalation_to_json)
   VALUES (:alertId, :channelId, 'alert.escalated', 'pending', 0, :now, :now, :step, :steps, CAST(:toJson AS TEXT))`,
);

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

function policyOf(r: PolicyRow): EscalationPolicy {
  return {
    channelId: r.channelId,
    minLevel: r.minLevel,
    afterMs: Number(r.afterMs),
    everyMs: Number(r.everyMs),
    times: Number(r.times),
    then: r.thenJson === null ? null : (JSON.parse(r.thenJson) as string[]),
    updatedBy: r.updatedBy,
    updatedAt: Number(r.updatedAt),
  };
}

export class SqlEscalationRows implements EscalationRows {
  constructor(private readonly database: SqlExecutor) {}

  async policy(channelId: string) {
    const row = await this.database.get(POLICY, { channelId });
    return row && policyOf(row);
  }

  async upsert(p: EscalationPolicy) {
    const row: PolicyRow = { ...p, thenJson: p.then === null ? null : JSON.stringify(p.then) };
    await this.database.transaction(function* (tx) {
      yield* tx.run(UPSERT_POLICY, row);
      yield* tx.run(START_CURSOR, {});
      yield* tx.run(LOOK_AGAIN, { channelId: row.channelId });
    });
  }

  remove(channelId: string) {
    return this.database.transaction(function* (tx) {
      yield* tx.run(DELETE_CHANNEL_STATES, { channelId });
      return (yield* tx.run(DELETE_POLICY, { channelId })) > 0;
    });
  }

  async changedSince(limit: number) {
    const cursor = await this.database.get(CURSOR_AT, {});
    if (!cursor) return null;
    const after = Number(cursor.lastEventId);
    const upTo = num((await this.database.get(BATCH_END, { after, limit }))?.upTo ?? null);
    if (upTo === null) return null;
    return { alertIds: (await this.database.all(CHANGED, { after, upTo })).map((r) => r.alertId), upTo };
  }

  async moveCursor(upTo: number) {
    await this.database.run(MOVE_CURSOR, { upTo });
  }

  async dueAlerts(now: number, limit: number) {
    return (await this.database.all(DUE, { now, limit })).map((r) => r.alertId);
  }

  async nextDue() {
    return num((await this.database.get(NEXT_DUE, {}))?.next ?? null);
  }

  evaluate(alertId: string, decide: EscalationDecide, now: number) {
    return this.database.transaction((tx) => evaluateSteps(tx, alertId, decide, now));
  }
}

function* evaluateSteps(tx: TransactionSteps, alertId: string, decide: EscalationDecide, now: number): Step<EscalationSend | null> {
  const row = yield* tx.get(SUBJECT, { alertId });
  // Chat messages have no lifecycle to escalate.
  const subject: EscalationSubject | undefined =
    row && row.kind === 'standard'
      ? { ...row, snoozedUntil: num(row.snoozedUntil), createdAt: Number(row.createdAt), reopenedAt: num((yield* tx.get(REOPENED_AT, { alertId }))?.at ?? null) }
      : undefined;
  const policyRow = row ? yield* tx.get(POLICY, { channelId: row.channelId }) : undefined;
  const stateRow = yield* tx.get(STATE, { alertId });
  const current = stateRow && { armedAt: Number(stateRow.armedAt), step: Number(stateRow.step), dueAt: num(stateRow.dueAt) };
  const policy = policyRow && policyOf(policyRow);
  const decision = decide(subject, policy, current);
  if (decision.drop || !row || !policy) {
    if (stateRow) yield* tx.run(DROP_STATE, { alertId });
    return null;
  }
  yield* tx.run(SAVE_STATE, { ...decision.state, alertId, channelId: row.channelId });
  const send = decision.send;
  if (!send) return null;
  const to = send.final ? (policy.then ?? (yield* tx.all(OWNERS_AND_ADMINS, { channelId: row.channelId })).map((r) => r.userId)) : null;
  yield* tx.run(INSERT_JOB, { alertId, channelId: row.channelId, now, step: send.step, steps: send.steps, toJson: to && JSON.stringify(to) });
  return send;
}

const JOB_MARK = statement<{ jobId: number }, Required<EscalationMark>>(
  `SELECT escalation_step AS "escalationStep", escalation_steps AS "escalationSteps", escalation_to_json AS "escalationToJson"
   FROM notification_jobs WHERE id = :jobId`,
);

/**
 * The escalation step a notification job carries, read inside the outbox's fan-out and claims (a
 * second look only for `alert.escalated` jobs, so every other row keeps its shape and cost).
 */
export function* escalationMarkOf(tx: TransactionSteps, kind: string | null, jobId: number): Step<EscalationMark> {
  if (kind !== 'alert.escalated') return {};
  return (yield* tx.get(JOB_MARK, { jobId })) ?? {};
}
