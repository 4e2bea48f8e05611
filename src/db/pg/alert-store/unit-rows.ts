import type pg from 'pg';
import type { AttachmentRecord } from '../../../domain/alert-store.js';
import type { Unit } from './unit.js';

/**
 * Inserts the files of several alerts in one statement, positions in each alert's given order; the
 * rows go as arrays (`unnest`), so the statement's parameters do not grow with them.
 */
export async function insertAttachmentRows(tx: pg.PoolClient, alerts: { alertId: string; files: AttachmentRecord[] }[]): Promise<void> {
  const cols: unknown[][] = Array.from({ length: 7 }, () => []);
  for (const a of alerts) {
    a.files.forEach((f, i) => [a.alertId, i, f.mediaKey, f.mime, f.kind, f.name, f.size].forEach((v, k) => cols[k]!.push(v)));
  }
  if (cols[0]!.length === 0) return;
  await tx.query(
    `INSERT INTO alert_attachments (alert_id, position, media_key, mime, kind, name, size)
     SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[])`,
    cols,
  );
}

/** Which alerts a delete may take besides their ids: those of one channel, of one kind, not running. */
export interface DeleteFilter {
  channelId?: string;
  kind?: 'chat';
  /** A running workflow run is never deleted (retention). */
  notRunning?: boolean;
}

/**
 * Inside a unit: deletes those of `ids` that exist and pass `filter`, with their attachment rows
 * and read exceptions (ON DELETE CASCADE; the delete trigger keeps channel_stats and every
 * watermark's gone_above), queues an `alert.deleted` change for each in the order given, and
 * answers the deleted alerts (with their channel) and the media keys they used.
 *
 * The rows are locked first (in id order, so two deleting units cannot deadlock), and the keys
 * read after the lock: an edit that replaced an alert's files and committed meanwhile is seen, so
 * no key leaves with the cascade unreported.
 */
export async function deleteAlerts(
  u: Unit,
  ids: readonly string[],
  filter: DeleteFilter,
  now: number,
): Promise<{ deleted: { id: string; channelId: string }[]; released: string[] }> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return { deleted: [], released: [] };
  const params: unknown[] = [unique];
  const where = ['id = ANY($1::text[])'];
  if (filter.channelId !== undefined) where.push(`channel_id = $${params.push(filter.channelId)}`);
  if (filter.kind !== undefined) where.push(`kind = $${params.push(filter.kind)}`);
  if (filter.notRunning) where.push("(workflow_state IS NULL OR workflow_state <> 'running')");
  const { rows } = await u.tx.query<{ id: string; channelId: string }>(
    `SELECT id, channel_id AS "channelId" FROM alerts WHERE ${where.join(' AND ')} ORDER BY id FOR UPDATE`,
    params,
  );
  if (rows.length === 0) return { deleted: [], released: [] };
  const locked = rows.map((r) => r.id);
  const keys = await u.tx.query<{ key: string }>('SELECT DISTINCT media_key AS key FROM alert_attachments WHERE alert_id = ANY($1::text[])', [locked]);
  await u.tx.query('DELETE FROM alerts WHERE id = ANY($1::text[])', [locked]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const deleted = unique.flatMap((id) => byId.get(id) ?? []);
  for (const d of deleted) u.events.push({ channelId: d.channelId, alertId: d.id, type: 'alert.deleted', now });
  return { deleted, released: keys.rows.map((r) => r.key) };
}
