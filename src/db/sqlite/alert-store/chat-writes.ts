import type Database from 'better-sqlite3';
import type { ChatLinkRef, NewChatMessage, ReplyParent } from '../../../domain/alert-store.js';
import { SqlChatWrites } from '../../shared/chat-writes.js';
import { SqliteDiscordLinkUnitWrites } from '../discord-link-unit-writes.js';
import type { SqliteWriteUnits } from '../write-units.js';
import type { StoreWriteContext } from './write-context.js';

type InsertParams = [
  string, string, string | null, string, string, string | null,
  string | null, string | null, string | null, string | null, number,
  string, number, number, number, string, string,
];

/**
 * Chat-message rows (`kind = 'chat'`) on SQLite: the shared writes (src/db/shared/chat-writes.ts)
 * and the insert, row by row in one group-commit unit that resolves after COMMIT.
 */
export class SqliteChatWrites extends SqlChatWrites {
  /** The link's sync mark, written inside the insert's unit. */
  private readonly links: SqliteDiscordLinkUnitWrites;
  private readonly insertMessage: Database.Statement<InsertParams>;
  private readonly parentOf: Database.Statement<[string, string], ReplyParent>;

  constructor(
    private readonly writes: StoreWriteContext,
    units: SqliteWriteUnits,
  ) {
    super(units.database, units);
    const { sqlite } = writes;
    this.links = new SqliteDiscordLinkUnitWrites(units.database);
    // The link check makes a message that arrives while its channel is being
    // disconnected a no-op instead of a row in a channel that no longer mirrors it.
    // Positional parameters: measurably cheaper than named ones on this hot path.
    // seq: the channel's next read-order number (from the batch's tally, channel-tally.ts), so a backfilled old message is still unread.
    this.insertMessage = sqlite.prepare<InsertParams>(
      `INSERT INTO alerts (id, channel_id, kind, title, level, emoji, message, external_id, author_json, reply_to_json,
         thread_id, thread_json, tags_json, reactions_json, reaction_count, activity_key, created_at, updated_at, seq)
       SELECT ?, ?, 'chat', '', 'INFO', '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
       WHERE EXISTS (SELECT 1 FROM discord_links WHERE channel_id = ? AND discord_channel_id = ?)
       ON CONFLICT DO NOTHING`,
    );
    this.parentOf = sqlite.prepare<[string, string], ReplyParent>(
      "SELECT author_json AS authorJson, message FROM alerts WHERE id = ? AND channel_id = ? AND kind = 'chat'",
    );
  }

  insertChatMessages(link: ChatLinkRef, messages: NewChatMessage[], now: number, opts: { advanceMarkTo?: string } = {}) {
    const { writes } = this;
    return writes.batcher.run(() => {
      let created = 0;
      let skippedWithFiles = 0;
      const parent = (alertId: string) => this.parentOf.get(alertId, link.channelId);
      for (const m of messages) {
        // Still idempotent: a message stored meanwhile (live and backfill at once) is skipped by ON CONFLICT.
        const inserted =
          this.insertMessage.run(
            m.alertId, link.channelId, m.text, m.messageId, m.authorJson, replyJson(m, parent),
            m.thread?.id ?? null, m.thread?.json ?? null, m.thread?.tagsJson ?? null, m.reactionsJson ?? null, m.reactionCount ?? 0, m.activityKey,
            m.createdAt, m.updatedAt, writes.tally.take(link.channelId, true), link.channelId, link.discordChannelId,
          ).changes > 0;
        if (!inserted) {
          writes.tally.giveBack();
          if (m.attachments.length) skippedWithFiles++;
          continue;
        }
        writes.attachments.insert(m.alertId, m.attachments);
        writes.indexer.schedule();
        writes.changes.event(link.channelId, m.alertId, 'alert.created', now);
        created++;
      }
      const mark = opts.advanceMarkTo;
      if (mark !== undefined) this.links.advanceMark(link, mark);
      return { created, skippedWithFiles };
    });
  }
}

/** The reply's stored JSON, its parent looked up inside the unit. */
function replyJson(m: NewChatMessage, parent: (alertId: string) => ReplyParent | undefined): string | null {
  if (!m.reply) return null;
  return m.reply.json(m.reply.parentId === null ? undefined : parent(m.reply.parentId));
}
