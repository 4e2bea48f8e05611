import type {
  KeyedUpdate, NewStandardAlert, RunState, RunUpdate, SavedKeyed, StoredIdempotentAnswer, StoredKeyed, StoredRun, WebhookAlertWrites,
} from '../../domain/alert-store.js';
import type { SqlExecutor } from './executor.js';
import { perEngine, statement } from './statement.js';
import type { WriteUnits } from './write-units.js';

const ANSWER = statement<{ channelId: string; key: string }, StoredIdempotentAnswer>(
  'SELECT request_hash AS "requestHash", response_json AS json, created_at AS "createdAt" FROM idempotency_keys WHERE channel_id = :channelId AND key = :key',
);
// substr, not LIKE: a key may contain % or _. CAST: PostgreSQL cannot type a parameter that only length() reads.
const PRUNE_ANSWERS = statement<{ before: number; prefix: string; longBefore: number }>(
  `DELETE FROM idempotency_keys
   WHERE created_at < :before AND (substr(key, 1, length(CAST(:prefix AS TEXT))) <> :prefix OR created_at < :longBefore)`,
);
// actor_json is text holding JSON: SQLite edits it with json_set; PostgreSQL as jsonb (key order and spacing may change; the object is the same).
const SET_ACTOR_AVATAR = perEngine<{ alertId: string; url: string }, { channelId: string }>({
  sqlite: `UPDATE alerts SET actor_json = json_set(actor_json, '$.avatarUrl', :url)
           WHERE id = :alertId AND json_extract(actor_json, '$.avatarUrl') IS NULL RETURNING channel_id AS "channelId"`,
  pg: `UPDATE alerts SET actor_json = jsonb_set(actor_json::jsonb, '{avatarUrl}', to_jsonb(:url::text))::text
       WHERE id = :alertId AND (actor_json::jsonb ->> 'avatarUrl') IS NULL RETURNING channel_id AS "channelId"`,
});

/**
 * Webhook writes, on either engine: the avatar edit and the Idempotency-Key answers are shared;
 * storing an alert or a run stays the engines' own (SQLite's group commit numbering from the batch's
 * tally; PostgreSQL's insert batcher, row locks and trigger numbering).
 */
export abstract class SqlWebhookWrites implements WebhookAlertWrites {
  constructor(
    protected readonly database: SqlExecutor,
    protected readonly units: WriteUnits,
  ) {}

  abstract insertAlert(a: NewStandardAlert): Promise<StoredRun>;

  abstract saveRun(a: NewStandardAlert, decide: (stored: RunState) => RunUpdate): Promise<StoredRun & { notified: boolean; released: string[] }>;

  abstract saveKeyed(a: NewStandardAlert, dedupKey: string, decide: (stored: StoredKeyed | undefined) => KeyedUpdate | null): Promise<SavedKeyed | null>;

  setActorAvatar(alertId: string, url: string, now: number): Promise<boolean> {
    return this.units.run(function* (tx, effects) {
      const changed = yield* tx.get(SET_ACTOR_AVATAR, { alertId, url });
      if (!changed) return false;
      effects.event(changed.channelId, alertId, 'alert.updated', now);
      return true;
    });
  }

  idempotentAnswer(channelId: string, key: string): Promise<StoredIdempotentAnswer | undefined> {
    return this.database.get(ANSWER, { channelId, key });
  }

  pruneIdempotentAnswers(before: number, long?: { prefix: string; before: number }): Promise<number> {
    // Without a long window, the empty prefix matches every key, so `before` alone decides.
    return this.database.run(PRUNE_ANSWERS, { before, prefix: long?.prefix ?? '', longBefore: long?.before ?? before });
  }
}
