import type Database from 'better-sqlite3';
import type {
  KeyedUpdate,
  NewStandardAlert,
  RunState,
  RunUpdate,
  SavedKeyed,
  StoredKeyed,
  StoredRun,
} from '../../../domain/alert-store.js';
import { decideSource } from '../../../domain/alert-lifecycle.js';
import { applyLifecycle } from '../../shared/alert-lifecycle-rows.js';
import { FIND_KEYED, UPDATE_CONTENT } from '../../shared/group-statements.js';
import { CONTENT_KEYS, contentColumn, plainContentAssignments } from '../../shared/alert-content-columns.js';
import { SqlWebhookWrites } from '../../shared/webhook-writes.js';
import type { SqliteWriteUnits } from '../write-units.js';
import type { StoreWriteContext } from './write-context.js';

/**
 * The status column of idempotency_keys predates status-free answers: every
 * stored answer is an accepted webhook. Kept so the table needs no migration;
 * nothing reads it (http/ maps an accepted answer to its status).
 */
const ACCEPTED = 201;

/**
 * Built once from the content list (alert-content-columns.ts), prepared once below.
 * seq: the channel's next read-order number, from the batch's tally (channel-tally.ts), which writes channel_stats once per batch.
 */
const INSERT_ALERT = `INSERT INTO alerts (id, channel_id, kind, ${CONTENT_KEYS.map((key) => contentColumn(key).column).join(', ')},
    activity_key, created_at, updated_at, seq)
  VALUES (?, ?, 'standard', ${CONTENT_KEYS.map(() => '?').join(', ')}, ?, ?, ?, ?)`;

/**
 * Runs INSERT_ALERT with positional arguments, one call generated once from the content list
 * (constant identifiers, never input). This is the hottest statement: binding an object by name
 * costs ~2x, and an array built per row ~0.5 µs more than arguments.
 */
// `new Function` on purpose: generated from the constant key list (see the comment), never from input.
const runInsert = new Function(
  'statement', 'a', 'seq',
  `const c = a.content; statement.run(a.alertId, a.channelId, ${CONTENT_KEYS.map((key) => `c.${key}`).join(', ')}, a.alertId, a.now, a.now, seq);`,
) as (statement: Database.Statement<unknown[]>, a: NewStandardAlert, seq: number) => void;

/**
 * A null steps value keeps the stored steps (GitHub's workflow_run update: its steps come from workflow_job events).
 * Resurfacing takes the channel's next number from the batch's tally (@resurfaceSeq; migration 0012's trigger then stands aside).
 */
const UPDATE_RUN = `UPDATE alerts SET ${plainContentAssignments((key) => `@${key}`)},
    workflow_state = @workflowState, workflow_steps_json = COALESCE(@workflowStepsJson, workflow_steps_json), workflow_error = @workflowError,
    activity_key = COALESCE(@resurfaceAs, activity_key), seq = COALESCE(@resurfaceSeq, seq), updated_at = @now
  WHERE id = @id`;

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
      insertAlert: sqlite.prepare<unknown[]>(INSERT_ALERT),
      findRun: sqlite.prepare<[string, string], { id: string; workflowState: RunState }>(
        'SELECT id, workflow_state AS workflowState FROM alerts WHERE channel_id = ? AND workflow_run_id = ?',
      ),
      updateRun: sqlite.prepare<Record<string, string | number | null>>(UPDATE_RUN),
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
      const lifecycle = update.lifecycle;
      const moved = lifecycle && this.writes.database.stepsNow((tx) => applyLifecycle(tx, this.writes.changes, existing.id, decideSource(lifecycle, a.now), a.now));
      if (update.notify) this.writes.changes.notification(a.channelId, existing.id, update.notify, a.now);
      this.writes.changes.event(a.channelId, existing.id, 'alert.updated', a.now);
      // One route event per write: the status change when there was one, else the update.
      if (!moved?.statusEvent) this.writes.changes.alertEvent('alert.updated', a.channelId, existing.id, a.now);
      const stored = { alertId: existing.id, created: false };
      this.saveAnswer(a, stored);
      return { ...stored, notified: update.notify !== null, released };
    });
  }

  saveKeyed(a: NewStandardAlert, dedupKey: string, decide: (stored: StoredKeyed | undefined) => KeyedUpdate | null): Promise<SavedKeyed | null> {
    const { database, tally, attachments, usage, changes } = this.writes;
    return this.writes.batcher.run((): SavedKeyed | null => {
      const existing = database.getNow(FIND_KEYED, { channelId: a.channelId, dedupKey });
      const update = decide(existing && { status: existing.status, level: existing.level });
      if (!update) return null;
      if (!existing) return { ...this.insertUnit(a), notified: true, released: [] };
      // A resurfaced alert takes the channel's next number from the batch's tally.
      const resurfaceSeq = update.resurfaceAs === null ? null : tally.take(a.channelId, false);
      database.runNow(UPDATE_CONTENT, { ...a.content, now: a.now, id: existing.id, resurfaceAs: update.resurfaceAs, resurfaceSeq });
      const released = a.attachments.length > 0 ? attachments.replace(existing.id, a.attachments) : [];
      const moved = database.stepsNow((tx) => applyLifecycle(tx, changes, existing.id, decideSource(update.lifecycle, a.now), a.now));
      if (update.countUsage) usage.count(a.workspaceId, a.now);
      if (update.notify) changes.notification(a.channelId, existing.id, update.notify, a.now);
      changes.event(a.channelId, existing.id, 'alert.updated', a.now);
      if (!moved?.statusEvent) changes.alertEvent('alert.updated', a.channelId, existing.id, a.now);
      const stored = { alertId: existing.id, created: false };
      this.saveAnswer(a, stored);
      return { ...stored, notified: update.notify !== null, released };
    });
  }

  /** Inside a unit: the alert, its files, usage, outbox row, change event and idempotency answer (group-writes.ts shares it). */
  insertUnit(a: NewStandardAlert): StoredRun {
    runInsert(this.statements.insertAlert, a, this.writes.tally.take(a.channelId, true));
    this.writes.attachments.insert(a.alertId, a.attachments);
    this.writes.indexer.schedule();
    this.writes.usage.count(a.workspaceId, a.now);
    this.writes.changes.notification(a.channelId, a.alertId, a.notify, a.now);
    this.writes.changes.event(a.channelId, a.alertId, 'alert.created', a.now);
    this.writes.changes.alertEvent('alert.opened', a.channelId, a.alertId, a.now);
    const first = a.lifecycleOnInsert;
    if (first) this.writes.database.stepsNow((tx) => applyLifecycle(tx, this.writes.changes, a.alertId, decideSource(first, a.now), a.now));
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
