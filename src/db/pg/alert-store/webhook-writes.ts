import pg from 'pg';
import type {
  KeyedUpdate,
  NewStandardAlert,
  RunState,
  RunUpdate,
  SavedKeyed,
  StoredKeyed,
  StoredRun,
} from '../../../domain/alert-store.js';
import { decideSource, type SourceTransition } from '../../../domain/alert-lifecycle.js';
import { applyLifecycle } from '../../shared/alert-lifecycle-rows.js';
import type { RouteEvent } from '../../../domain/routes/route-kinds.js';
import { FIND_KEYED, UPDATE_CONTENT } from '../../shared/group-statements.js';
import { ADD_USAGE_EVENTS } from '../../shared/usage-counters.js';
import { usageMonth } from '../../../lib/iso-time.js';
import { PLAIN_CONTENT_KEYS, plainContentAssignments } from '../../shared/alert-content-columns.js';
import { SqlWebhookWrites } from '../../shared/webhook-writes.js';
import { allOn, PgExecutor, runOn, stepsOn } from '../executor.js';
import { insertAlerts, saveAnswers } from './alert-inserts.js';
import { InsertBatcher } from './insert-batcher.js';
import { inUnit, PgWriteUnits, type Unit } from './unit.js';
import { insertAttachmentRows } from './unit-rows.js';

const UNIQUE_VIOLATION = '23505';

/** Inside a unit: the lifecycle move a source's write makes, its route event queued (shared with the group writes). */
export async function moveLifecycle(u: Unit, alertId: string, transition: SourceTransition, now: number): Promise<{ statusEvent: boolean }> {
  const routes = { alertEvent: (event: RouteEvent, channelId: string, id: string, at: number) => void u.routeEvents.push({ channelId, alertId: id, event, now: at }) };
  const moved = await stepsOn(u.tx, (tx) => applyLifecycle(tx, routes, alertId, decideSource(transition, now), now));
  return { statusEvent: moved?.statusEvent ?? false };
}

/**
 * Built once from the content list (alert-content-columns.ts): the plain content columns take $1…$n,
 * the run's own columns and the row's key follow. A null steps value keeps the stored steps; a fresh
 * activity key resurfaces the alert (its trigger gives it the next seq).
 */
const AFTER_PLAIN = PLAIN_CONTENT_KEYS.length;
const UPDATE_RUN = `UPDATE alerts SET ${plainContentAssignments((_key, i) => `$${i + 1}`)},
    workflow_state = $${AFTER_PLAIN + 1}, workflow_steps_json = COALESCE($${AFTER_PLAIN + 2}, workflow_steps_json),
    workflow_error = $${AFTER_PLAIN + 3}, activity_key = COALESCE($${AFTER_PLAIN + 4}, activity_key), updated_at = $${AFTER_PLAIN + 5}
  WHERE id = $${AFTER_PLAIN + 6}`;

/**
 * Webhook writes on PostgreSQL, behind the interface the SQLite store implements
 * (test/cluster/webhook-writes-contract.test.ts runs the same cases on both). Each public write is
 * one transaction; the domain's `decide` runs inside it against the row it read `FOR UPDATE`, so
 * two nodes updating one run take turns, each deciding from the state the other committed.
 * New alerts take their `seq` from `channel_stats` under its row lock (alert-inserts.ts: reading
 * seq_max + 1, as SQLite does, would give two concurrent inserts one number). Plain alerts of
 * concurrent requests go through the node's InsertBatcher: one transaction for many.
 */
export class PgWebhookWrites extends SqlWebhookWrites {
  /** Plain alerts of concurrent requests, written together (insert-batcher.ts). */
  readonly batcher: InsertBatcher<NewStandardAlert, StoredRun>;

  constructor(private readonly pool: pg.Pool) {
    super(new PgExecutor(pool), new PgWriteUnits(pool));
    this.batcher = new InsertBatcher({
      writeAll: (alerts) => inUnit(pool, (u) => insertAlerts(u, alerts)),
      writeOne: (a) => inUnit(pool, (u) => this.insertIn(u, a)),
    });
  }

  /** Resolves after the COMMIT of the batch that carried it. */
  insertAlert(a: NewStandardAlert): Promise<StoredRun> {
    return this.batcher.submit(a);
  }

  /**
   * Two nodes creating one run at once: neither finds a row, and the unique key on (channel, run
   * id) makes the second INSERT wait for the first's COMMIT, then fail. That unit rolled back; run
   * once more, it finds the committed row and updates it, as SQLite's single writer would have.
   */
  async saveRun(a: NewStandardAlert, decide: (stored: RunState) => RunUpdate): Promise<StoredRun & { notified: boolean; released: string[] }> {
    try {
      return await this.saveRunUnit(a, decide);
    } catch (err) {
      if (!(err instanceof pg.DatabaseError && err.code === UNIQUE_VIOLATION && err.constraint === 'alerts_channel_run_uq')) throw err;
      return this.saveRunUnit(a, decide);
    }
  }

  private saveRunUnit(a: NewStandardAlert, decide: (stored: RunState) => RunUpdate): Promise<StoredRun & { notified: boolean; released: string[] }> {
    return inUnit(this.pool, async (u) => {
      const runId = a.content.workflowRunId ?? '';
      const { rows } = await u.tx.query<{ id: string; state: RunState }>(
        'SELECT id, workflow_state AS state FROM alerts WHERE channel_id = $1 AND workflow_run_id = $2 FOR UPDATE',
        [a.channelId, runId],
      );
      const existing = rows[0];
      if (!existing) return { ...(await this.insertIn(u, a)), notified: true, released: [] };
      const update = decide(existing.state);
      const c = a.content;
      const values: unknown[] = PLAIN_CONTENT_KEYS.map((key) => c[key]);
      values.push(c.workflowState, c.workflowStepsJson, c.workflowError, update.resurfaceAs, a.now, existing.id);
      await u.tx.query(UPDATE_RUN, values);
      let released: string[] = [];
      if (a.attachments.length > 0) {
        const old = await u.tx.query<{ key: string }>('DELETE FROM alert_attachments WHERE alert_id = $1 RETURNING media_key AS key', [existing.id]);
        released = old.rows.map((r) => r.key);
        await insertAttachmentRows(u.tx, [{ alertId: existing.id, files: a.attachments }]);
      }
      const moved = update.lifecycle ? await moveLifecycle(u, existing.id, update.lifecycle, a.now) : { statusEvent: false };
      if (update.notify) u.jobs.push({ channelId: a.channelId, alertId: existing.id, kind: update.notify, now: a.now });
      u.events.push({ channelId: a.channelId, alertId: existing.id, type: 'alert.updated', now: a.now });
      // One route event per write: the status change when there was one, else the update.
      if (!moved.statusEvent) u.routeEvents.push({ channelId: a.channelId, alertId: existing.id, event: 'alert.updated', now: a.now });
      const stored = { alertId: existing.id, created: false };
      await this.saveAnswer(u.tx, a, stored);
      return { ...stored, notified: update.notify !== null, released };
    });
  }

  /** A second node creating the key's alert at once fails on (channel, dedup key) and retries, updating instead (as saveRun). */
  async saveKeyed(a: NewStandardAlert, dedupKey: string, decide: (stored: StoredKeyed | undefined) => KeyedUpdate | null): Promise<SavedKeyed | null> {
    try {
      return await this.saveKeyedUnit(a, dedupKey, decide);
    } catch (err) {
      if (!(err instanceof pg.DatabaseError && err.code === UNIQUE_VIOLATION && err.constraint === 'alerts_channel_dedup_uq')) throw err;
      return this.saveKeyedUnit(a, dedupKey, decide);
    }
  }

  private saveKeyedUnit(a: NewStandardAlert, dedupKey: string, decide: (stored: StoredKeyed | undefined) => KeyedUpdate | null): Promise<SavedKeyed | null> {
    return inUnit(this.pool, async (u): Promise<SavedKeyed | null> => {
      const [existing] = await allOn(u.tx, FIND_KEYED, { channelId: a.channelId, dedupKey });
      const update = decide(existing && { status: existing.status, level: existing.level });
      if (!update) return null;
      if (!existing) return { ...(await this.insertIn(u, a)), notified: true, released: [] };
      // A fresh activity key resurfaces the alert (its trigger gives it the channel's next seq).
      await runOn(u.tx, UPDATE_CONTENT, { ...a.content, now: a.now, id: existing.id, resurfaceAs: update.resurfaceAs, resurfaceSeq: null });
      let released: string[] = [];
      if (a.attachments.length > 0) {
        const old = await u.tx.query<{ key: string }>('DELETE FROM alert_attachments WHERE alert_id = $1 RETURNING media_key AS key', [existing.id]);
        released = old.rows.map((r) => r.key);
        await insertAttachmentRows(u.tx, [{ alertId: existing.id, files: a.attachments }]);
      }
      const moved = await moveLifecycle(u, existing.id, update.lifecycle, a.now);
      if (update.countUsage) await runOn(u.tx, ADD_USAGE_EVENTS, { workspaceId: a.workspaceId, month: usageMonth(a.now), events: 1 });
      if (update.notify) u.jobs.push({ channelId: a.channelId, alertId: existing.id, kind: update.notify, now: a.now });
      u.events.push({ channelId: a.channelId, alertId: existing.id, type: 'alert.updated', now: a.now });
      if (!moved.statusEvent) u.routeEvents.push({ channelId: a.channelId, alertId: existing.id, event: 'alert.updated', now: a.now });
      const stored = { alertId: existing.id, created: false };
      await this.saveAnswer(u.tx, a, stored);
      return { ...stored, notified: update.notify !== null, released };
    });
  }


  /** Inside a unit: the alert, its files, usage, outbox row, change event and idempotency answer (group writes insert through it too). */
  async insertIn(u: Unit, a: NewStandardAlert): Promise<StoredRun> {
    const stored = (await insertAlerts(u, [a]))[0]!;
    if (a.lifecycleOnInsert) await moveLifecycle(u, a.alertId, a.lifecycleOnInsert, a.now);
    return stored;
  }

  /** Inside a unit: the Idempotency-Key answer (group writes store theirs through it too). */
  saveAnswer(tx: pg.PoolClient, a: NewStandardAlert, stored: StoredRun): Promise<void> {
    return saveAnswers(tx, [a], [stored]);
  }
}
