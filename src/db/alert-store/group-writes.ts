import type { AlertGroupWrites, GroupUpdate, MergedJob, SavedGroup, StoredGroupState, StoredRunSteps } from '../../domain/alert-groups.js';
import type { NewStandardAlert, RunState } from '../../domain/alert-store.js';
import type { SqliteWebhookWrites } from './webhook-writes.js';
import type { StoreWriteContext } from './write-context.js';

/**
 * Alertmanager/Grafana groups (`alert_groups`, one alert per channel and group
 * key) and GitHub job steps merged into a stored run. Each public method is one
 * group-commit unit and resolves after COMMIT; inserts share the webhook
 * path's unit (alert, files, usage, outbox, change event, idempotency answer).
 */
export class SqliteGroupWrites implements AlertGroupWrites {
  private readonly s;

  constructor(
    private readonly w: StoreWriteContext,
    private readonly webhook: SqliteWebhookWrites,
  ) {
    const { sqlite } = w;
    this.s = {
      findGroup: sqlite.prepare<[string, string], { alertId: string; status: 'firing' | 'resolved'; stateFingerprint: string }>(
        `SELECT alert_id AS alertId, status, state_fingerprint AS stateFingerprint FROM alert_groups WHERE channel_id = ? AND group_key = ?`,
      ),
      upsertGroup: sqlite.prepare<[string, string, string, string, string, number]>(
        `INSERT INTO alert_groups (channel_id, group_key, alert_id, status, state_fingerprint, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (channel_id, group_key) DO UPDATE SET alert_id = excluded.alert_id, status = excluded.status,
           state_fingerprint = excluded.state_fingerprint, updated_at = excluded.updated_at`,
      ),
      updateContent: sqlite.prepare<Record<string, string | number | null>>(
        `UPDATE alerts SET title = @title, level = @level, emoji = @emoji, message = @message, fields_json = @fieldsJson,
           link_url = @linkUrl, link_text = @linkText, source = @source, metadata_json = @metadataJson, actor_json = @actorJson,
           activity_key = COALESCE(@resurfaceAs, activity_key), seq = COALESCE(@resurfaceSeq, seq), updated_at = @now
         WHERE id = @id`,
      ),
      findRun: sqlite.prepare<[string, string], { id: string; state: RunState; stepsJson: string | null }>(
        'SELECT id, workflow_state AS state, workflow_steps_json AS stepsJson FROM alerts WHERE channel_id = ? AND workflow_run_id = ?',
      ),
      setSteps: sqlite.prepare<[string, number, string]>('UPDATE alerts SET workflow_steps_json = ?, updated_at = ? WHERE id = ?'),
    };
  }

  saveGroup(a: NewStandardAlert, group: { key: string } & StoredGroupState, decide: (stored: StoredGroupState) => GroupUpdate): Promise<SavedGroup> {
    return this.w.batcher.run(() => {
      const existing = this.s.findGroup.get(a.channelId, group.key);
      if (!existing) {
        const stored = this.webhook.insertUnit(a);
        this.s.upsertGroup.run(a.channelId, group.key, a.alertId, group.status, group.stateFingerprint, a.now);
        return { ...stored, changed: true, notified: true, released: [] };
      }
      const update = decide(existing);
      const stored = { alertId: existing.alertId, created: false };
      if (update.repeat) {
        // Nothing changes; files fetched for the repeat are released unless the alert already uses them.
        this.webhook.saveAnswer(a, stored);
        return { ...stored, changed: false, notified: false, released: a.attachments.map((f) => f.mediaKey) };
      }
      // A resurfaced alert takes the channel's next number from the batch's tally (see webhook-writes.ts).
      const resurfaceSeq = update.resurfaceAs === null ? null : this.w.tally.take(a.channelId, false);
      this.s.updateContent.run({ ...a.content, now: a.now, id: existing.alertId, resurfaceAs: update.resurfaceAs, resurfaceSeq });
      const released = a.attachments.length > 0 ? this.w.attachments.replace(existing.alertId, a.attachments) : [];
      this.s.upsertGroup.run(a.channelId, group.key, existing.alertId, group.status, group.stateFingerprint, a.now);
      if (update.countUsage) this.w.usage.count(a.workspaceId, a.now);
      if (update.notify) this.w.changes.notification(a.channelId, existing.alertId, update.notify, a.now);
      this.w.changes.event(a.channelId, existing.alertId, 'alert.updated', a.now);
      this.webhook.saveAnswer(a, stored);
      return { ...stored, changed: true, notified: update.notify !== null, released };
    });
  }

  mergeRunStep(a: NewStandardAlert, merge: (stored: StoredRunSteps) => string | null): Promise<MergedJob> {
    return this.w.batcher.run((): MergedJob => {
      const existing = this.s.findRun.get(a.channelId, a.content.workflowRunId ?? '');
      if (!existing) return { ...this.webhook.insertUnit(a), ignored: false };
      const steps = merge({ state: existing.state, stepsJson: existing.stepsJson });
      if (steps === null) return { ignored: true, alertId: existing.id, state: existing.state };
      this.s.setSteps.run(steps, a.now, existing.id);
      this.w.changes.event(a.channelId, existing.id, 'alert.updated', a.now);
      const stored = { alertId: existing.id, created: false };
      this.webhook.saveAnswer(a, stored);
      return { ...stored, ignored: false };
    });
  }
}
