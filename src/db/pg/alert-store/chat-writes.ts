import type pg from 'pg';
import type { ChatLinkRef, NewChatMessage, ReplyParent } from '../../../domain/alert-store.js';
import { SqlChatWrites } from '../../shared/chat-writes.js';
import { ADVANCE_MARK } from '../../shared/discord-link-rows.js';
import { PgExecutor, runOn } from '../executor.js';
import { insertAttachmentRows } from './unit-rows.js';
import { inUnit, PgWriteUnits } from './unit.js';

const INSERT_COLUMNS = 16;

/**
 * Chat-message rows (`kind = 'chat'`) on PostgreSQL, behind the interface the SQLite store
 * implements (test/cluster/chat-writes-contract.test.ts runs the same cases on both). Each write is
 * one transaction (`inUnit`); all but the insert are shared (src/db/shared/chat-writes.ts): its change events are appended last, under the change-log lock.
 *
 * An insert first takes the link row FOR KEY SHARE: a disconnect (which deletes it) waits for the
 * unit, and a unit that starts after the disconnect finds no link and stores nothing, as SQLite's
 * per-row link check does. KEY SHARE, not SHARE: the unit then updates the row's sync mark, and two
 * units each holding SHARE while waiting to update would deadlock; an update of a non-key column
 * is compatible with KEY SHARE, so concurrent units only queue on the mark. The messages then go
 * in with one multi-row statement, in the given order; `alerts.seq` is left at 0 for the insert
 * trigger to number them under the channel_stats row lock, so two nodes storing into one channel at
 * once take distinct numbers.
 */
export class PgChatWrites extends SqlChatWrites {
  constructor(private readonly pool: pg.Pool) {
    super(new PgExecutor(pool), new PgWriteUnits(pool));
  }

  insertChatMessages(link: ChatLinkRef, messages: NewChatMessage[], now: number, opts: { advanceMarkTo?: string } = {}) {
    return inUnit(this.pool, async (u) => {
      const linked = await u.tx.query('SELECT 1 FROM discord_links WHERE channel_id = $1 AND discord_channel_id = $2 FOR KEY SHARE', [
        link.channelId,
        link.discordChannelId,
      ]);
      const skipped = (ms: NewChatMessage[]) => ms.filter((m) => m.attachments.length > 0).length;
      if (linked.rowCount === 0) return { created: 0, skippedWithFiles: skipped(messages) };

      // A repeated id in the batch is the same message: the first one is stored, as SQLite's ON CONFLICT does.
      const seen = new Set<string>();
      const batch = messages.filter((m) => !seen.has(m.alertId) && seen.add(m.alertId));
      const stored = await this.parents(u.tx, link.channelId, batch);
      // A parent is the stored row, else a message earlier in this batch (stored by this unit before the reply).
      const earlier = new Map<string, ReplyParent>();
      const values: unknown[] = [];
      const tuples = batch.map((m, i) => {
        const reply = m.reply ? m.reply.json(m.reply.parentId === null ? undefined : (stored.get(m.reply.parentId) ?? earlier.get(m.reply.parentId))) : null;
        earlier.set(m.alertId, { authorJson: m.authorJson, message: m.text });
        values.push(i, m.alertId, link.channelId, m.text, m.messageId, m.authorJson, reply, m.activityKey, m.createdAt, m.updatedAt, 0);
        values.push(m.thread?.id ?? null, m.thread?.json ?? null, m.thread?.tagsJson ?? null, m.reactionsJson ?? null, m.reactionCount ?? 0);
        const n = values.length - INSERT_COLUMNS;
        return `($${n + 1}::int, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5}, $${n + 6}, $${n + 7}, $${n + 8}, $${n + 9}::bigint, $${n + 10}::bigint, $${n + 11}::bigint, $${n + 12}::text, $${n + 13}::text, $${n + 14}::text, $${n + 15}::text, $${n + 16}::int)`;
      });
      const inserted = new Set<string>();
      if (tuples.length > 0) {
        // ORDER BY ord: rows go in (and the trigger numbers them) in the given order.
        const { rows } = await u.tx.query<{ id: string }>(
          `INSERT INTO alerts (id, channel_id, kind, title, level, emoji, message, external_id, author_json, reply_to_json,
             activity_key, created_at, updated_at, seq, thread_id, thread_json, tags_json, reactions_json, reaction_count)
           SELECT v.id, v.channel_id, 'chat', '', 'INFO', '', v.message, v.external_id, v.author_json, v.reply_to_json,
             v.activity_key, v.created_at, v.updated_at, v.seq, v.thread_id, v.thread_json, v.tags_json, v.reactions_json, v.reaction_count
           FROM (VALUES ${tuples.join(', ')}) AS v(ord, id, channel_id, message, external_id, author_json, reply_to_json, activity_key, created_at, updated_at, seq,
             thread_id, thread_json, tags_json, reactions_json, reaction_count)
           ORDER BY v.ord
           ON CONFLICT DO NOTHING RETURNING id`,
          values,
        );
        for (const r of rows) inserted.add(r.id);
      }
      const created = batch.filter((m) => inserted.has(m.alertId));
      await insertAttachmentRows(u.tx, created.map((m) => ({ alertId: m.alertId, files: m.attachments })));
      for (const m of created) u.events.push({ channelId: link.channelId, alertId: m.alertId, type: 'alert.created', now });
      const mark = opts.advanceMarkTo;
      if (mark !== undefined) await runOn(u.tx, ADVANCE_MARK, { messageId: mark, channelId: link.channelId, discordChannelId: link.discordChannelId });
      const firsts = new Set(batch);
      return { created: created.length, skippedWithFiles: skipped(messages.filter((m) => !(firsts.has(m) && inserted.has(m.alertId)))) };
    });
  }







  /** The stored messages the batch's replies name, read inside the unit (one statement). */
  private async parents(tx: pg.PoolClient, channelId: string, batch: NewChatMessage[]): Promise<Map<string, ReplyParent>> {
    const ids = batch.flatMap((m) => (m.reply?.parentId ? [m.reply.parentId] : []));
    if (ids.length === 0) return new Map();
    const { rows } = await tx.query<ReplyParent & { id: string }>(
      `SELECT id, author_json AS "authorJson", message FROM alerts WHERE id = ANY($1::text[]) AND channel_id = $2 AND kind = 'chat'`,
      [ids, channelId],
    );
    return new Map(rows.map((r) => [r.id, { authorJson: r.authorJson, message: r.message }]));
  }
}
