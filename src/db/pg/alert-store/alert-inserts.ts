import type pg from 'pg';
import type { NewStandardAlert, StoredRun } from '../../../domain/alert-store.js';
import { CONTENT_KEYS, contentColumn } from '../../shared/alert-content-columns.js';
import type { Unit } from './unit.js';
import { insertAttachmentRows } from './unit-rows.js';
import { usageMonth } from '../../../lib/iso-time.js';
import { prepared } from '../prepared.js';

/** As on SQLite (src/db/sqlite/alert-store/webhook-writes.ts): every stored answer is an accepted webhook; nothing reads the column. */
const ACCEPTED = 201;

/** The channels' numbers taken in one statement, in channel order (see insertAlerts). */
const RESERVE_SEQS = prepared('reserve_seqs', `INSERT INTO channel_stats AS s (channel_id, alert_count, seq_max)
  SELECT c, 0, n FROM unnest($1::text[], $2::bigint[]) AS t(c, n) ORDER BY c
  ON CONFLICT (channel_id) DO UPDATE SET seq_max = s.seq_max + excluded.seq_max
  RETURNING channel_id AS "channelId", seq_max AS "top"`);

/**
 * Built once from the content list (alert-content-columns.ts): each content column arrives as one
 * array, between the id and channel before it and the time and seq after it (see insertAlerts).
 */
const CONTENT_COLUMNS = CONTENT_KEYS.map(contentColumn);
const CONTENT_NAMES = CONTENT_COLUMNS.map((c) => c.column).join(', ');
const N = CONTENT_COLUMNS.length;
/**
 * The alerts and the workspaces' usage counts in one statement: the usage upsert as a data-modifying
 * CTE on the last three parameters (keys sorted, see tally), the alerts from the arrays before them.
 */
const INSERT_ALERTS_AND_USAGE = prepared(
  'insert_alerts_usage',
  `WITH usage AS (INSERT INTO usage_counters AS u (workspace_id, month, events)
    SELECT w, m, n FROM unnest($${N + 5}::text[], $${N + 6}::text[], $${N + 7}::bigint[]) AS t(w, m, n) ORDER BY w, m
    ON CONFLICT (workspace_id, month) DO UPDATE SET events = u.events + excluded.events)
  INSERT INTO alerts (id, channel_id, kind, ${CONTENT_NAMES}, activity_key, created_at, updated_at, seq)
  SELECT id, ch, 'standard', ${CONTENT_NAMES}, id, at, at, seq
  FROM unnest($1::text[], $2::text[], ${CONTENT_COLUMNS.map((c, i) => `$${i + 3}::${c.pgType}[]`).join(', ')},
    $${N + 3}::bigint[], $${N + 4}::bigint[])
    AS t(id, ch, ${CONTENT_NAMES}, at, seq)`,
);

const SAVE_ANSWERS = prepared('save_answers', `INSERT INTO idempotency_keys (channel_id, key, request_hash, status, response_json, created_at)
  SELECT c, k, h, ${ACCEPTED}, j, at FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[]) AS t(c, k, h, j, at)
  ON CONFLICT (channel_id, key) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status,
    response_json = excluded.response_json, created_at = excluded.created_at`);

/** Counts per key, the keys sorted: rows are locked in one order by every node, so two batches never deadlock. */
function tally(keys: string[]): [string[], number[]] {
  const counts = new Map<string, number>();
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  const sorted = [...counts.keys()].sort();
  return [sorted, sorted.map((k) => counts.get(k)!)];
}

/**
 * Inside a unit: plain alerts with their files, usage counts, outbox rows, change events and
 * idempotency answers, in a few statements whatever their number (a batch of webhook
 * requests, or the single alert of a run or group). Every statement takes its rows as arrays
 * (`unnest`), so a batch needs no parameter list that grows with it.
 *
 * Numbers: each channel's next `seq` values are taken first, in one upsert of `channel_stats`
 * that adds the batch's count to `seq_max` under the row lock (held to COMMIT, so concurrent
 * writers in a channel take disjoint ranges), and the alerts are inserted with them. The insert
 * trigger then only counts the alert; left at 0, it would number each row with a second UPDATE of
 * the row it just inserted (and recompute its search vector). Alerts of one channel take their
 * numbers in the order given. Locks are taken in sorted key order (channels, then usage rows),
 * so two nodes' batches wait for each other rather than deadlock.
 */
export async function insertAlerts(u: Unit, alerts: readonly NewStandardAlert[]): Promise<StoredRun[]> {
  if (alerts.length === 0) return [];
  const tx: pg.PoolClient = u.tx;
  const [channels, counts] = tally(alerts.map((a) => a.channelId));
  const reserved = await tx.query<{ channelId: string; top: string | number }>(RESERVE_SEQS([channels, counts]));
  const next = new Map<string, number>();
  const countOf = new Map(channels.map((c, i) => [c, counts[i]!]));
  for (const r of reserved.rows) next.set(r.channelId, Number(r.top) - countOf.get(r.channelId)! + 1);
  const cols: unknown[][] = Array.from({ length: CONTENT_KEYS.length + 4 }, () => []);
  const atColumn = CONTENT_KEYS.length + 2;
  for (const a of alerts) {
    const c = a.content;
    const seq = next.get(a.channelId)!;
    next.set(a.channelId, seq + 1);
    cols[0]!.push(a.alertId);
    cols[1]!.push(a.channelId);
    for (let i = 0; i < CONTENT_KEYS.length; i++) cols[i + 2]!.push(c[CONTENT_KEYS[i]!]);
    cols[atColumn]!.push(a.now);
    cols[atColumn + 1]!.push(seq);
  }
  const [usageKeys, usageCounts] = tally(alerts.map((a) => `${a.workspaceId}\n${usageMonth(a.now)}`));
  const split = usageKeys.map((k) => k.split('\n'));
  await tx.query(INSERT_ALERTS_AND_USAGE([...cols, split.map((s) => s[0]), split.map((s) => s[1]), usageCounts]));
  await insertAttachmentRows(tx, alerts.map((a) => ({ alertId: a.alertId, files: a.attachments })));
  const stored = alerts.map((a) => ({ alertId: a.alertId, created: true }));
  await saveAnswers(tx, alerts, stored);
  for (const a of alerts) {
    u.jobs.push({ channelId: a.channelId, alertId: a.alertId, kind: a.notify, now: a.now });
    u.events.push({ channelId: a.channelId, alertId: a.alertId, type: 'alert.created', now: a.now });
    u.routeEvents.push({ channelId: a.channelId, alertId: a.alertId, event: 'alert.opened', now: a.now });
  }
  return stored;
}

/** Inside a unit: the Idempotency-Key answers of the alerts that carry a key (one statement). */
export async function saveAnswers(tx: pg.PoolClient, alerts: readonly NewStandardAlert[], stored: readonly StoredRun[]): Promise<void> {
  const cols: unknown[][] = [[], [], [], [], []];
  alerts.forEach((a, i) => {
    const idem = a.idempotency;
    if (!idem) return;
    const row = [a.channelId, idem.key, idem.hash, JSON.stringify(idem.answer(stored[i]!)), a.now];
    for (let k = 0; k < row.length; k++) cols[k]!.push(row[k]);
  });
  if (cols[0]!.length > 0) await tx.query(SAVE_ANSWERS(cols));
}
