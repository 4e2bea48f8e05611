import type { AlertGroupWrites, GroupUpdate, MergedJob, SavedGroup, StoredGroupState, StoredRunSteps } from '../../../domain/alert-groups.js';
import type { NewStandardAlert } from '../../../domain/alert-store.js';
import { decideSource } from '../../../domain/alert-lifecycle.js';
import { applyLifecycle } from '../../shared/alert-lifecycle-rows.js';
import { FIND_GROUP, FIND_RUN, INSERT_GROUP, SET_STEPS, UPDATE_CONTENT, UPDATE_GROUP } from '../../shared/group-statements.js';
import type { SqliteWebhookWrites } from './webhook-writes.js';
import type { StoreWriteContext } from './write-context.js';

/**
 * Alertmanager/Grafana groups (`alert_groups`, one alert per channel and group
 * key) and GitHub job steps merged into a stored run. Each public method is one
 * group-commit unit and resolves after COMMIT; inserts share the webhook
 * path's unit (alert, files, usage, outbox, change event, idempotency answer).
 * The statements are shared with PostgreSQL (src/db/shared/group-statements.ts).
 */
export class SqliteGroupWrites implements AlertGroupWrites {
  constructor(
    private readonly writes: StoreWriteContext,
    private readonly webhook: SqliteWebhookWrites,
  ) {}

  saveGroup(a: NewStandardAlert, group: { key: string } & StoredGroupState, decide: (stored: StoredGroupState) => GroupUpdate): Promise<SavedGroup> {
    const { database, tally, attachments, usage, changes } = this.writes;
    return this.writes.batcher.run(() => {
      const groupRow = { channelId: a.channelId, groupKey: group.key, status: group.status, stateFingerprint: group.stateFingerprint, now: a.now };
      const existing = database.getNow(FIND_GROUP, { channelId: a.channelId, groupKey: group.key });
      if (!existing) {
        const stored = this.webhook.insertUnit(a);
        database.runNow(INSERT_GROUP, { ...groupRow, alertId: a.alertId });
        return { ...stored, changed: true, notified: true, released: [] };
      }
      const update = decide({ status: existing.status, stateFingerprint: existing.stateFingerprint });
      const stored = { alertId: existing.alertId, created: false };
      if (update.repeat) {
        // Nothing changes; files fetched for the repeat are released unless the alert already uses them.
        this.webhook.saveAnswer(a, stored);
        return { ...stored, changed: false, notified: false, released: a.attachments.map((f) => f.mediaKey) };
      }
      // A resurfaced alert takes the channel's next number from the batch's tally (see webhook-writes.ts).
      const resurfaceSeq = update.resurfaceAs === null ? null : tally.take(a.channelId, false);
      database.runNow(UPDATE_CONTENT, { ...a.content, now: a.now, id: existing.alertId, resurfaceAs: update.resurfaceAs, resurfaceSeq });
      const released = a.attachments.length > 0 ? attachments.replace(existing.alertId, a.attachments) : [];
      database.runNow(UPDATE_GROUP, groupRow);
      const lifecycle = update.lifecycle;
      if (lifecycle) database.stepsNow((tx) => applyLifecycle(tx, changes, existing.alertId, decideSource(lifecycle, a.now), a.now));
      if (update.countUsage) usage.count(a.workspaceId, a.now);
      if (update.notify) changes.notification(a.channelId, existing.alertId, update.notify, a.now);
      changes.event(a.channelId, existing.alertId, 'alert.updated', a.now);
      this.webhook.saveAnswer(a, stored);
      return { ...stored, changed: true, notified: update.notify !== null, released };
    });
  }

  mergeRunStep(a: NewStandardAlert, merge: (stored: StoredRunSteps) => string | null): Promise<MergedJob> {
    const { database, changes } = this.writes;
    return this.writes.batcher.run((): MergedJob => {
      const existing = database.getNow(FIND_RUN, { channelId: a.channelId, runId: a.content.workflowRunId ?? '' });
      if (!existing) return { ...this.webhook.insertUnit(a), ignored: false };
      const steps = merge({ state: existing.state, stepsJson: existing.stepsJson });
      if (steps === null) return { ignored: true, alertId: existing.id, state: existing.state };
      database.runNow(SET_STEPS, { id: existing.id, stepsJson: steps, now: a.now });
      changes.event(a.channelId, existing.id, 'alert.updated', a.now);
      const stored = { alertId: existing.id, created: false };
      this.webhook.saveAnswer(a, stored);
      return { ...stored, ignored: false };
    });
  }
}
