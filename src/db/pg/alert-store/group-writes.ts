import pg from 'pg';
import type { AlertGroupWrites, GroupUpdate, MergedJob, SavedGroup, StoredGroupState, StoredRunSteps } from '../../../domain/alert-groups.js';
import type { NewStandardAlert } from '../../../domain/alert-store.js';
import { FIND_GROUP, FIND_RUN, INSERT_GROUP, SET_STEPS, UPDATE_CONTENT, UPDATE_GROUP } from '../../shared/group-statements.js';
import { ADD_USAGE_EVENTS } from '../../shared/usage-counters.js';
import { allOn, runOn } from '../executor.js';
import { insertAttachmentRows } from './unit-rows.js';
import { inUnit } from './unit.js';
import { moveLifecycle, type PgWebhookWrites } from './webhook-writes.js';
import { usageMonth } from '../../../lib/iso-time.js';

const UNIQUE_VIOLATION = '23505';

/**
 * Runs a unit once more when it lost a race to create a row another node created at the same
 * moment: the unique key made its INSERT wait for the other's COMMIT and then fail, which rolled
 * the unit back; run again, it finds the committed row and updates it, as SQLite's single writer
 * would have done.
 */
async function retryOnce<T>(constraint: string, unit: () => Promise<T>): Promise<T> {
  try {
    return await unit();
  } catch (err) {
    if (!(err instanceof pg.DatabaseError && err.code === UNIQUE_VIOLATION && err.constraint === constraint)) throw err;
    return unit();
  }
}

/**
 * Alertmanager/Grafana groups (`alert_groups`, one alert per channel and group key) and GitHub job
 * steps merged into a stored run, on PostgreSQL, behind the interface the SQLite store implements
 * (src/db/sqlite/alert-store/group-writes.ts; test/cluster/group-writes-contract.test.ts runs the same
 * cases on both). Each public method is one transaction; the stored row is read `FOR UPDATE`, so
 * two nodes updating one group take turns, each deciding from the state the other committed.
 * Inserts share the webhook path's unit (alert, files, usage, outbox, change event, idempotency).
 */
export class PgGroupWrites implements AlertGroupWrites {
  constructor(
    private readonly pool: pg.Pool,
    private readonly webhook: PgWebhookWrites,
  ) {}

  /** A new group is inserted with a plain INSERT of its group row: a second node creating it at once fails on the key and retries. */
  saveGroup(a: NewStandardAlert, group: { key: string } & StoredGroupState, decide: (stored: StoredGroupState) => GroupUpdate): Promise<SavedGroup> {
    return retryOnce('alert_groups_channel_id_group_key_pk', () => this.saveGroupUnit(a, group, decide));
  }

  private saveGroupUnit(a: NewStandardAlert, group: { key: string } & StoredGroupState, decide: (stored: StoredGroupState) => GroupUpdate): Promise<SavedGroup> {
    return inUnit(this.pool, async (u): Promise<SavedGroup> => {
      const groupRow = { channelId: a.channelId, groupKey: group.key, status: group.status, stateFingerprint: group.stateFingerprint, now: a.now };
      const [existing] = await allOn(u.tx, FIND_GROUP, { channelId: a.channelId, groupKey: group.key });
      if (!existing) {
        const stored = await this.webhook.insertIn(u, a);
        await runOn(u.tx, INSERT_GROUP, { ...groupRow, alertId: a.alertId });
        return { ...stored, changed: true, notified: true, released: [] };
      }
      const update = decide({ status: existing.status, stateFingerprint: existing.stateFingerprint });
      const stored = { alertId: existing.alertId, created: false };
      if (update.repeat) {
        // Nothing changes; files fetched for the repeat are released unless the alert already uses them.
        await this.webhook.saveAnswer(u.tx, a, stored);
        return { ...stored, changed: false, notified: false, released: a.attachments.map((f) => f.mediaKey) };
      }
      // A fresh activity key resurfaces the alert (its trigger gives it the channel's next seq).
      await runOn(u.tx, UPDATE_CONTENT, { ...a.content, now: a.now, id: existing.alertId, resurfaceAs: update.resurfaceAs, resurfaceSeq: null });
      let released: string[] = [];
      if (a.attachments.length > 0) {
        const old = await u.tx.query<{ key: string }>('DELETE FROM alert_attachments WHERE alert_id = $1 RETURNING media_key AS key', [existing.alertId]);
        released = old.rows.map((r) => r.key);
        await insertAttachmentRows(u.tx, [{ alertId: existing.alertId, files: a.attachments }]);
      }
      await runOn(u.tx, UPDATE_GROUP, groupRow);
      if (update.lifecycle) await moveLifecycle(u, existing.alertId, update.lifecycle, a.now);
      if (update.countUsage) {
        await runOn(u.tx, ADD_USAGE_EVENTS, { workspaceId: a.workspaceId, month: usageMonth(a.now), events: 1 });
      }
      if (update.notify) u.jobs.push({ channelId: a.channelId, alertId: existing.alertId, kind: update.notify, now: a.now });
      u.events.push({ channelId: a.channelId, alertId: existing.alertId, type: 'alert.updated', now: a.now });
      await this.webhook.saveAnswer(u.tx, a, stored);
      return { ...stored, changed: true, notified: update.notify !== null, released };
    });
  }

  /** A run not stored yet is inserted; a second node inserting it at once fails on (channel, run id) and retries, merging instead. */
  mergeRunStep(a: NewStandardAlert, merge: (stored: StoredRunSteps) => string | null): Promise<MergedJob> {
    return retryOnce('alerts_channel_run_uq', () =>
      inUnit(this.pool, async (u): Promise<MergedJob> => {
        const [existing] = await allOn(u.tx, FIND_RUN, { channelId: a.channelId, runId: a.content.workflowRunId ?? '' });
        if (!existing) return { ...(await this.webhook.insertIn(u, a)), ignored: false };
        const steps = merge({ state: existing.state, stepsJson: existing.stepsJson });
        if (steps === null) return { ignored: true, alertId: existing.id, state: existing.state };
        await runOn(u.tx, SET_STEPS, { id: existing.id, stepsJson: steps, now: a.now });
        u.events.push({ channelId: a.channelId, alertId: existing.id, type: 'alert.updated', now: a.now });
        const stored = { alertId: existing.id, created: false };
        await this.webhook.saveAnswer(u.tx, a, stored);
        return { ...stored, ignored: false };
      }),
    );
  }
}
