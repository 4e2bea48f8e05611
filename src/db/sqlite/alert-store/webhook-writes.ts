import type {
  NewStandardAlert,
  RunState,
  RunUpdate,
  StoredRun,
} from '../../../domain/alert-store.js';
import { SqlWebhookWrites } from '../../shared/webhook-writes.js';
import type { SqliteWriteUnits } from '../write-units.js';
import type { StoreWriteContext } from './write-context.js';

/**
 * The status column of idempotency_keys predates status-free answers: every
 * stored answer is an accepted webhook. Kept so the table needs no migration;
 * nothing reads it (http/ maps an accepted answer to its status).
 */
const ACCEPTED = 201;

/** Webhook writes: each public method is one group-commit unit and resolves after COMMIT. */
export class SqliteWebhookWrites extends SqlWebhookWrites {
  private readonly statements;

  constructor(
    private readonly writes: StoreWriteContext,
    units: SqliteWriteUnits,
  ) {
    super(units.database, units);
    const { sqlite } = writes;
    this.statements = {
      // Positional parameters: binding an object by name costs ~2x on this, the hottest statement.
      insertAlert: sqlite.prepare<
        [string, string, string, string, string, string | null, string | null, string | null, string | null, string | null,
          string | null, string | null, string | null, string | null, string | null, string | null, string, number, number, number]
      >(
        // seq: the channel's next read-order number, from the batch's tally (channel-tally.ts), which writes channel_stats once per batch.
        `INSERT INTO alerts (id, channel_id, kind, title, level, emoji, message, fields_json, link_url, link_text, source,
           metadata_json, actor_json, workflow_run_id, workflow_state, workflow_steps_json, workflow_error, activity_key, created_at, updated_at, seq)
         VALUES (?, ?, 'standard', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      findRun: sqlite.prepare<[string, string], { id: string; workflowState: RunState }>(
        'SELECT id, workflow_state AS workflowState FROM alerts WHERE channel_id = ? AND workflow_run_id = ?',
      ),
      // A null steps value keeps the stored steps (GitHub's workflow_run update: its steps come from workflow_job events).
      // Resurfacing takes the channel's next number from the batch's tally (@resurfaceSeq; migration 0012's trigger then stands aside).
      updateRun: sqlite.prepare<Record<string, string | number | null>>(
        `UPDATE alerts SET title = @title, level = @level, emoji = @emoji, message = @message, fields_json = @fieldsJson,
           link_url = @linkUrl, link_text = @linkText, source = @source, metadata_json = @metadataJson, actor_json = @actorJson,
           workflow_state = @workflowState, workflow_steps_json = COALESCE(@workflowStepsJson, workflow_steps_json), workflow_error = @workflowError,
           activity_key = COALESCE(@resurfaceAs, activity_key), seq = COALESCE(@resurfaceSeq, seq), updated_at = @now
         WHERE id = @id`,
      ),
      saveAnswer: sqlite.prepare<[string, string, string, number, string, number]>(
        `INSERT INTO idempotency_keys (channel_id, key, request_hash, status, response_json, created_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (channel_id, key) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status,
           response_json = excluded.response_json, created_at = excluded.created_at`,
      ),
    };
  }

  insertAlert(a: NewStandardAlert): Promise<StoredRun> {
    return this.writes.batcher.run(() => this.insertUnit(a));
  }

  saveRun(a: NewStandardAlert, decide: (stored: RunState) => RunUpdate) {
    return this.writes.batcher.run(() => {
      const existing = this.statements.findRun.get(a.channelId, a.content.workflowRunId ?? '');
      if (!existing) return { ...this.insertUnit(a), notified: true, released: [] };
      const update = decide(existing.workflowState);
      const resurfaceSeq = update.resurfaceAs === null ? null : this.writes.tally.take(a.channelId, false);
      this.statements.updateRun.run({ ...a.content, now: a.now, id: existing.id, resurfaceAs: update.resurfaceAs, resurfaceSeq });
      const released = a.attachments.length > 0 ? this.writes.attachments.replace(existing.id, a.attachments) : [];
      if (update.notify) this.writes.changes.notification(a.channelId, existing.id, update.notify, a.now);
      this.writes.changes.event(a.channelId, existing.id, 'alert.updated', a.now);
      const stored = { alertId: existing.id, created: false };
      this.saveAnswer(a, stored);
      return { ...stored, notified: update.notify !== null, released };
    });
  }




  /** Inside a unit: the alert, its files, usage, outbox row, change event and idempotency answer (group-writes.ts shares it). */
  insertUnit(a: NewStandardAlert): StoredRun {
    const c = a.content;
    this.statements.insertAlert.run(
      a.alertId, a.channelId, c.title, c.level, c.emoji, c.message, c.fieldsJson, c.linkUrl, c.linkText, c.source, c.metadataJson,
      c.actorJson, c.workflowRunId, c.workflowState, c.workflowStepsJson, c.workflowError, a.alertId, a.now, a.now,
      this.writes.tally.take(a.channelId, true),
    );
    this.writes.attachments.insert(a.alertId, a.attachments);
    this.writes.indexer.schedule();
    this.writes.usage.count(a.workspaceId, a.now);
    this.writes.changes.notification(a.channelId, a.alertId, a.notify, a.now);
    this.writes.changes.event(a.channelId, a.alertId, 'alert.created', a.now);
    const stored = { alertId: a.alertId, created: true };
    this.saveAnswer(a, stored);
    return stored;
  }

  /** Inside a unit. */
  saveAnswer(a: NewStandardAlert, stored: StoredRun): void {
    const idem = a.idempotency;
    if (idem) this.statements.saveAnswer.run(a.channelId, idem.key, idem.hash, ACCEPTED, JSON.stringify(idem.answer(stored)), a.now);
  }
}
