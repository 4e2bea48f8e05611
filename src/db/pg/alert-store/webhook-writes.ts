import pg from 'pg';
import type {
  AttachmentRecord,
  NewStandardAlert,
  NotificationKind,
  RunState,
  RunUpdate,
  StoredIdempotentAnswer,
  StoredRun,
  WebhookAlertWrites,
} from '../../../domain/alert-store.js';
import { appendChangeEvents, type NewChangeEvent } from './change-log.js';
import { inTransaction } from '../transaction.js';

const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);

/** As on SQLite (src/db/alert-store/webhook-writes.ts): every stored answer is an accepted webhook; nothing reads the column. */
const ACCEPTED = 201;
const UNIQUE_VIOLATION = '23505';

/** What one unit writes besides its own statements: appended at its end, so the change-log lock is held as briefly as possible. */
export interface Unit {
  tx: pg.PoolClient;
  events: NewChangeEvent[];
  jobs: { channelId: string; alertId: string; kind: NotificationKind; now: number }[];
}

/**
 * Runs `body` in one transaction on a pool client: BEGIN, the body, the outbox rows and change
 * events it queued, COMMIT; ROLLBACK on any error (a domain refusal thrown by `decide` included),
 * so a failed unit leaves nothing behind. Resolves after COMMIT, with the server's default
 * `synchronous_commit` (on): a resolved write is durable, as a 201 promises.
 */
export async function inUnit<T>(pool: pg.Pool, body: (u: Unit) => Promise<T>): Promise<T> {
  return inTransaction(pool, async (tx) => {
    const u: Unit = { tx, events: [], jobs: [] };
    const result = await body(u);
    if (u.jobs.length > 0) {
      const values: unknown[] = [];
      const tuples = u.jobs.map((j) => {
        values.push(j.alertId, j.channelId, j.kind, j.now);
        const n = values.length;
        return `($${n - 3}, $${n - 2}, $${n - 1}, 'pending', 0, $${n}, $${n})`;
      });
      await tx.query(
        `INSERT INTO notification_jobs (alert_id, channel_id, kind, state, attempts, next_attempt_at, created_at) VALUES ${tuples.join(', ')}`,
        values,
      );
    }
    // Last: the append takes the change-log lock, held from here to COMMIT only.
    await appendChangeEvents(tx, u.events);
    return result;
  });
}

/** Inserts an alert's files, positions in the given order (one statement). */
export async function insertAttachments(tx: pg.PoolClient, alertId: string, files: AttachmentRecord[]): Promise<void> {
  if (files.length === 0) return;
  const values: unknown[] = [];
  const tuples = files.map((f, i) => {
    values.push(alertId, i, f.mediaKey, f.mime, f.kind, f.name, f.size);
    const n = values.length;
    return `($${n - 6}, $${n - 5}, $${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, $${n})`;
  });
  await tx.query(`INSERT INTO alert_attachments (alert_id, position, media_key, mime, kind, name, size) VALUES ${tuples.join(', ')}`, values);
}

/**
 * Webhook writes on PostgreSQL, behind the interface the SQLite store implements
 * (test/cluster/webhook-writes-contract.test.ts runs the same cases on both). Each public write is
 * one transaction; the domain's `decide` runs inside it against the row it read `FOR UPDATE`, so
 * two nodes updating one run take turns, each deciding from the state the other committed.
 * `alerts.seq` is left at 0: the insert trigger numbers the alert under the channel_stats row lock
 * (reading seq_max + 1 here, as SQLite does, would give two concurrent inserts one number).
 */
export class PgWebhookWrites implements WebhookAlertWrites {
  constructor(private readonly pool: pg.Pool) {}

  insertAlert(a: NewStandardAlert): Promise<StoredRun> {
    return inUnit(this.pool, (u) => this.insertIn(u, a));
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
      // A null steps value keeps the stored steps; a fresh activity key resurfaces the alert (its trigger gives it the next seq).
      await u.tx.query(
        `UPDATE alerts SET title = $1, level = $2, emoji = $3, message = $4, fields_json = $5, link_url = $6, link_text = $7, source = $8,
           metadata_json = $9, actor_json = $10, workflow_state = $11, workflow_steps_json = COALESCE($12, workflow_steps_json),
           workflow_error = $13, activity_key = COALESCE($14, activity_key), updated_at = $15
         WHERE id = $16`,
        [c.title, c.level, c.emoji, c.message, c.fieldsJson, c.linkUrl, c.linkText, c.source, c.metadataJson, c.actorJson,
          c.workflowState, c.workflowStepsJson, c.workflowError, update.resurfaceAs, a.now, existing.id],
      );
      let released: string[] = [];
      if (a.attachments.length > 0) {
        const old = await u.tx.query<{ key: string }>('DELETE FROM alert_attachments WHERE alert_id = $1 RETURNING media_key AS key', [existing.id]);
        released = old.rows.map((r) => r.key);
        await insertAttachments(u.tx, existing.id, a.attachments);
      }
      if (update.notify) u.jobs.push({ channelId: a.channelId, alertId: existing.id, kind: update.notify, now: a.now });
      u.events.push({ channelId: a.channelId, alertId: existing.id, type: 'alert.updated', now: a.now });
      const stored = { alertId: existing.id, created: false };
      await this.saveAnswer(u.tx, a, stored);
      return { ...stored, notified: update.notify !== null, released };
    });
  }

  setActorAvatar(alertId: string, url: string, now: number): Promise<boolean> {
    return inUnit(this.pool, async (u) => {
      // actor_json is text holding JSON: edited as jsonb (key order and spacing may change; the object is the same).
      const { rows } = await u.tx.query<{ channelId: string }>(
        `UPDATE alerts SET actor_json = jsonb_set(actor_json::jsonb, '{avatarUrl}', to_jsonb($1::text))::text
         WHERE id = $2 AND (actor_json::jsonb ->> 'avatarUrl') IS NULL RETURNING channel_id AS "channelId"`,
        [url, alertId],
      );
      const channelId = rows[0]?.channelId;
      if (channelId === undefined) return false;
      u.events.push({ channelId, alertId, type: 'alert.updated', now });
      return true;
    });
  }

  async idempotentAnswer(channelId: string, key: string): Promise<StoredIdempotentAnswer | undefined> {
    const { rows } = await this.pool.query<StoredIdempotentAnswer>(
      'SELECT request_hash AS "requestHash", response_json AS json, created_at AS "createdAt" FROM idempotency_keys WHERE channel_id = $1 AND key = $2',
      [channelId, key],
    );
    return rows[0];
  }

  async pruneIdempotentAnswers(before: number, long?: { prefix: string; before: number }): Promise<number> {
    const prefix = long?.prefix ?? '';
    // left(), not LIKE: a key may contain % or _.
    const res = await this.pool.query(
      'DELETE FROM idempotency_keys WHERE created_at < $1 AND (left(key, length($2)) <> $2 OR created_at < $3)',
      [before, prefix, long?.before ?? before],
    );
    return res.rowCount ?? 0;
  }

  /** Inside a unit: the alert, its files, usage, outbox row, change event and idempotency answer (group writes insert through it too). */
  async insertIn(u: Unit, a: NewStandardAlert): Promise<StoredRun> {
    const c = a.content;
    await u.tx.query(
      `INSERT INTO alerts (id, channel_id, kind, title, level, emoji, message, fields_json, link_url, link_text, source,
         metadata_json, actor_json, workflow_run_id, workflow_state, workflow_steps_json, workflow_error, activity_key, created_at, updated_at, seq)
       VALUES ($1, $2, 'standard', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $1, $17, $17, 0)`,
      [a.alertId, a.channelId, c.title, c.level, c.emoji, c.message, c.fieldsJson, c.linkUrl, c.linkText, c.source, c.metadataJson,
        c.actorJson, c.workflowRunId, c.workflowState, c.workflowStepsJson, c.workflowError, a.now],
    );
    await insertAttachments(u.tx, a.alertId, a.attachments);
    await u.tx.query(
      `INSERT INTO usage_counters (workspace_id, month, events) VALUES ($1, $2, 1)
       ON CONFLICT (workspace_id, month) DO UPDATE SET events = usage_counters.events + 1`,
      [a.workspaceId, monthOf(a.now)],
    );
    u.jobs.push({ channelId: a.channelId, alertId: a.alertId, kind: a.notify, now: a.now });
    u.events.push({ channelId: a.channelId, alertId: a.alertId, type: 'alert.created', now: a.now });
    const stored = { alertId: a.alertId, created: true };
    await this.saveAnswer(u.tx, a, stored);
    return stored;
  }

  /** Inside a unit: the Idempotency-Key answer (group writes store theirs through it too). */
  async saveAnswer(tx: pg.PoolClient, a: NewStandardAlert, stored: StoredRun): Promise<void> {
    const idem = a.idempotency;
    if (!idem) return;
    await tx.query(
      `INSERT INTO idempotency_keys (channel_id, key, request_hash, status, response_json, created_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (channel_id, key) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status,
         response_json = excluded.response_json, created_at = excluded.created_at`,
      [a.channelId, idem.key, idem.hash, ACCEPTED, JSON.stringify(idem.answer(stored)), a.now],
    );
  }
}
