import type { AttachmentRecord, AttachmentRow, ChatLinkNames, ChatLinkRef, ChatMessageWrites, NewChatMessage, ReplyParent } from '../../domain/alert-store.js';
import { SqliteDiscordLinkUnitWrites } from '../sqlite/discord-link-unit-writes.js';
import { SqliteExecutor } from '../sqlite/executor.js';
import type { StoreWriteContext } from './write-context.js';
import { ATTACHMENT_COLUMNS } from './rows.js';

/** Chat-message rows (`kind = 'chat'`). Each write is one group-commit unit and resolves after COMMIT. */
export class SqliteChatWrites implements ChatMessageWrites {
  private readonly s;
  /** The link's sync mark and names, written inside this store's units. */
  private readonly links: SqliteDiscordLinkUnitWrites;

  constructor(private readonly w: StoreWriteContext) {
    const { sqlite } = w;
    this.links = new SqliteDiscordLinkUnitWrites(new SqliteExecutor(sqlite));
    this.s = {
      // The link check makes a message that arrives while its channel is being
      // disconnected a no-op instead of a row in a channel that no longer mirrors it.
      // Positional parameters: measurably cheaper than named ones on this hot path.
      // seq: the channel's next read-order number (from the batch's tally, channel-tally.ts), so a backfilled old message is still unread.
      insert: sqlite.prepare<[string, string, string | null, string, string, string | null, string, number, number, number, string, string]>(
        `INSERT INTO alerts (id, channel_id, kind, title, level, emoji, message, external_id, author_json, reply_to_json,
           activity_key, created_at, updated_at, seq)
         SELECT ?, ?, 'chat', '', 'INFO', '', ?, ?, ?, ?, ?, ?, ?, ?
         WHERE EXISTS (SELECT 1 FROM discord_links WHERE channel_id = ? AND discord_channel_id = ?)
         ON CONFLICT DO NOTHING`,
      ),
      parent: sqlite.prepare<[string, string], ReplyParent>(
        "SELECT author_json AS authorJson, message FROM alerts WHERE id = ? AND channel_id = ? AND kind = 'chat'",
      ),
      current: sqlite.prepare<[string, string], { message: string | null; updatedAt: number }>(
        "SELECT message, updated_at AS updatedAt FROM alerts WHERE id = ? AND channel_id = ? AND kind = 'chat'",
      ),
      attachments: sqlite.prepare<[string], AttachmentRow>(`SELECT ${ATTACHMENT_COLUMNS} FROM alert_attachments WHERE alert_id = ? ORDER BY position`),
      update: sqlite.prepare<[string | null, number, string, string]>(
        "UPDATE alerts SET message = ?, updated_at = ? WHERE id = ? AND channel_id = ? AND kind = 'chat'",
      ),
      remove: sqlite.prepare<[string, string]>("DELETE FROM alerts WHERE id = ? AND channel_id = ? AND kind = 'chat'"),
      existing: sqlite.prepare<[string], string>('SELECT id FROM alerts WHERE id IN (SELECT value FROM json_each(?))').pluck(),
      count: sqlite.prepare<[string], number>("SELECT count(*) FROM alerts WHERE channel_id = ? AND kind = 'chat'").pluck(),
    };
  }

  async storedIds(alertIds: string[]) {
    return new Set(this.s.existing.all(JSON.stringify(alertIds)));
  }

  insertChatMessages(link: ChatLinkRef, messages: NewChatMessage[], now: number, opts: { advanceMarkTo?: string } = {}) {
    return this.w.batcher.run(() => {
      let created = 0;
      let skippedWithFiles = 0;
      const parent = (alertId: string) => this.s.parent.get(alertId, link.channelId);
      for (const m of messages) {
        // Still idempotent: a message stored meanwhile (live and backfill at once) is skipped by ON CONFLICT.
        const inserted =
          this.s.insert.run(
            m.alertId, link.channelId, m.text, m.messageId, m.authorJson, replyJson(m, parent), m.activityKey,
            m.createdAt, m.updatedAt, this.w.tally.take(link.channelId, true), link.channelId, link.discordChannelId,
          ).changes > 0;
        if (!inserted) {
          this.w.tally.giveBack();
          if (m.attachments.length) skippedWithFiles++;
          continue;
        }
        this.w.attachments.insert(m.alertId, m.attachments);
        this.w.indexer.schedule();
        this.w.changes.event(link.channelId, m.alertId, 'alert.created', now);
        created++;
      }
      const mark = opts.advanceMarkTo;
      if (mark !== undefined) this.links.advanceMark(link, mark);
      return { created, skippedWithFiles };
    });
  }

  advanceMark(link: ChatLinkRef, messageId: string) {
    return this.w.batcher.run(() => this.links.advanceMark(link, messageId));
  }

  setLinkNames(link: ChatLinkRef, names: ChatLinkNames) {
    return this.w.batcher.run(() => this.links.setNames(link, names));
  }

  async chatMessage(alertId: string, channelId: string) {
    const current = this.s.current.get(alertId, channelId);
    return current && { ...current, attachments: this.s.attachments.all(alertId) };
  }

  editChatMessage(link: ChatLinkRef, alertId: string, edit: { text: string | null; editedAt: number; files: AttachmentRecord[] | null; now: number }) {
    return this.w.batcher.run(() => {
      if (this.s.update.run(edit.text, edit.editedAt, alertId, link.channelId).changes === 0) return { updated: false, released: [] };
      const released = edit.files ? this.w.attachments.replace(alertId, edit.files) : [];
      this.w.changes.event(link.channelId, alertId, 'alert.updated', edit.now);
      return { updated: true, released };
    });
  }

  removeChatMessages(link: ChatLinkRef, alertIds: string[], now: number) {
    return this.w.batcher.run(() => {
      const released: string[] = [];
      let removed = 0;
      for (const id of alertIds) {
        const keys = this.w.attachments.keys(id);
        if (this.s.remove.run(id, link.channelId).changes === 0) continue;
        released.push(...keys);
        this.w.changes.event(link.channelId, id, 'alert.deleted', now);
        removed++;
      }
      return { removed, released };
    });
  }

  async chatMessageCount(channelId: string) {
    return this.s.count.get(channelId) ?? 0;
  }
}

/** The reply's stored JSON, its parent looked up inside the unit. */
function replyJson(m: NewChatMessage, parent: (alertId: string) => ReplyParent | undefined): string | null {
  if (!m.reply) return null;
  return m.reply.json(m.reply.parentId === null ? undefined : parent(m.reply.parentId));
}
