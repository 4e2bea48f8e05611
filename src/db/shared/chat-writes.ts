import type {
  AttachmentRecord, AttachmentRow, ChatLinkNames, ChatLinkRef, ChatMessageWrites, ChatReaction, ChatThreadRecord, NewChatMessage, ThreadHead, ThreadPageQuery, ThreadRow, AlertRow,
} from '../../domain/alert-store.js';
import { REACTIONS_OF, SAVE_THREAD, SET_REACTIONS, THREAD_COPIES, THREAD_HEADS, THREAD_MESSAGES, THREAD_PAGES } from './chat-thread-rows.js';
import { ADVANCE_MARK, CHAT_MESSAGES, SET_LINK_NAMES } from './discord-link-rows.js';
import type { SqlExecutor, Step, TransactionSteps } from './executor.js';
import { ATTACHMENT_SELECT } from './alert-columns.js';
import { byDialect, statement } from './statement.js';
import type { WriteUnits } from './write-units.js';

type ChatEdit = { text: string | null; editedAt: number; files: AttachmentRecord[] | null; now: number };

const STORED = byDialect<{ ids: string[] }, { id: string }>((dialect) => `SELECT id FROM alerts WHERE id IN ${dialect.listOf('ids', 'text')}`);
const CURRENT = statement<{ alertId: string; channelId: string }, { message: string | null; updatedAt: number }>(
  `SELECT message, updated_at AS "updatedAt" FROM alerts WHERE id = :alertId AND channel_id = :channelId AND kind = 'chat'`,
);
const ATTACHMENTS = statement<{ alertId: string }, AttachmentRow>(`SELECT ${ATTACHMENT_SELECT} FROM alert_attachments WHERE alert_id = :alertId ORDER BY position`);
const EDIT = statement<{ alertId: string; channelId: string; text: string | null; editedAt: number }>(
  `UPDATE alerts SET message = :text, updated_at = :editedAt WHERE id = :alertId AND channel_id = :channelId AND kind = 'chat'`,
);
const REMOVE_FILES = statement<{ alertId: string }, { key: string }>('DELETE FROM alert_attachments WHERE alert_id = :alertId RETURNING media_key AS key');
const ADD_FILE = statement<{ alertId: string; position: number } & AttachmentRecord>(
  'INSERT INTO alert_attachments (alert_id, position, media_key, mime, kind, name, size) VALUES (:alertId, :position, :mediaKey, :mime, :kind, :name, :size)',
);
// In id order, and on PostgreSQL locked (FOR UPDATE): two deleting units cannot deadlock, and the keys read after the lock are the ones that leave.
const CHAT_ROWS = byDialect<{ ids: string[]; channelId: string }, { id: string }>(
  (dialect) => `SELECT id FROM alerts WHERE id IN ${dialect.listOf('ids', 'text')} AND channel_id = :channelId AND kind = 'chat'
   ORDER BY id${dialect.engine === 'postgres' ? ' FOR UPDATE' : ''}`,
);
const MEDIA_OF = byDialect<{ ids: string[] }, { key: string }>(
  (dialect) => `SELECT DISTINCT media_key AS key FROM alert_attachments WHERE alert_id IN ${dialect.listOf('ids', 'text')}`,
);
const DELETE = byDialect<{ ids: string[] }>((dialect) => `DELETE FROM alerts WHERE id IN ${dialect.listOf('ids', 'text')}`);

/**
 * Chat-message rows (`kind = 'chat'`), on either engine, each write one unit that has committed
 * when it resolves. Storing new messages is the engines' own (`insertChatMessages`): SQLite inserts
 * row by row in the group commit, numbering from the batch's tally; PostgreSQL inserts a batch in
 * one statement and its trigger numbers the rows.
 */
export abstract class SqlChatWrites implements ChatMessageWrites {
  constructor(
    protected readonly database: SqlExecutor,
    protected readonly units: WriteUnits,
  ) {}

  abstract insertChatMessages(
    link: ChatLinkRef,
    messages: NewChatMessage[],
    now: number,
    opts?: { advanceMarkTo?: string },
  ): Promise<{ created: number; skippedWithFiles: number }>;

  async storedIds(alertIds: string[]) {
    return new Set((await this.database.all(STORED, { ids: alertIds })).map((r) => r.id));
  }

  advanceMark(link: ChatLinkRef, messageId: string) {
    return this.units.run(function* (tx) {
      return (yield* tx.run(ADVANCE_MARK, { messageId, channelId: link.channelId, discordChannelId: link.discordChannelId })) > 0;
    });
  }

  setLinkNames(link: ChatLinkRef, names: ChatLinkNames) {
    return this.units.run(function* (tx) {
      return (yield* tx.run(SET_LINK_NAMES, { channelId: link.channelId, discordChannelId: link.discordChannelId, ...names })) > 0;
    });
  }

  async chatMessage(alertId: string, channelId: string) {
    const current = await this.database.get(CURRENT, { alertId, channelId });
    return current && { ...current, attachments: await this.database.all(ATTACHMENTS, { alertId }) };
  }

  editChatMessage(link: ChatLinkRef, alertId: string, edit: ChatEdit) {
    return this.units.run(function* (tx, effects) {
      if ((yield* tx.run(EDIT, { alertId, channelId: link.channelId, text: edit.text, editedAt: edit.editedAt })) === 0) return { updated: false, released: [] };
      let released: string[] = [];
      if (edit.files) {
        // The UPDATE holds the row (PostgreSQL's row lock, SQLite's one writer): no other unit changes these files until COMMIT.
        released = (yield* tx.all(REMOVE_FILES, { alertId })).map((r) => r.key);
        yield* addFiles(tx, alertId, edit.files);
      }
      effects.event(link.channelId, alertId, 'alert.updated', edit.now);
      return { updated: true, released };
    });
  }

  removeChatMessages(link: ChatLinkRef, alertIds: string[], now: number) {
    const { channelId } = link;
    return this.units.run(function* (tx, effects) {
      const unique = [...new Set(alertIds)];
      const found = unique.length === 0 ? [] : yield* tx.all(CHAT_ROWS, { ids: unique, channelId });
      if (found.length === 0) return { removed: 0, released: [] };
      const ids = found.map((r) => r.id);
      // Read before the delete: the cascade takes the attachment rows with it.
      const released = (yield* tx.all(MEDIA_OF, { ids })).map((r) => r.key);
      yield* tx.run(DELETE, { ids });
      const gone = new Set(ids);
      for (const id of unique) if (gone.has(id)) effects.event(channelId, id, 'alert.deleted', now);
      return { removed: ids.length, released };
    });
  }

  async chatMessageCount(channelId: string) {
    return (await this.database.value(CHAT_MESSAGES, { channelId })) ?? 0;
  }

  async threadPage(channelId: string, q: ThreadPageQuery): Promise<ThreadRow[]> {
    const stmt = THREAD_PAGES[q.sort][q.tag === null ? 'all' : 'tagged'];
    const rows = await this.database.all(stmt, {
      channelId, limit: q.limit, cursorKey: q.cursor?.key ?? null, cursorId: q.cursor?.id ?? null, tag: q.tag,
    });
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      tags: JSON.parse(r.tagsJson) as string[],
      starterAlertId: r.starterAlertId,
      messageCount: Number(r.messageCount),
      lastMessageAt: r.lastMessageAt === null ? null : Number(r.lastMessageAt),
      reactionCount: Number(r.reactionCount),
      sortKey: Number(r.sortKey),
    }));
  }

  async threadHeads(channelId: string, threadIds: readonly string[]): Promise<ThreadHead[]> {
    if (threadIds.length === 0) return [];
    const rows = await this.database.all(THREAD_HEADS, { channelId, threadIds });
    return rows.map((r) => ({ threadId: r.threadId, headId: r.headId, messageCount: Number(r.messageCount), lastMessageAt: Number(r.lastMessageAt) }));
  }

  threadMessages(channelId: string, threadId: string, limit: number, after = ''): Promise<AlertRow[]> {
    return this.database.all(THREAD_MESSAGES, { channelId, threadId, after, limit });
  }

  saveThread(link: ChatLinkRef, thread: ChatThreadRecord, now: number) {
    const { channelId, discordChannelId } = link;
    const copies = threadCopies(thread);
    return this.units.run(function* (tx, effects) {
      const saved = yield* tx.run(SAVE_THREAD, {
        channelId, discordChannelId, threadId: thread.threadId, name: thread.name, tagsJson: copies.tagsJson, archived: thread.archived, now,
      });
      if (saved === 0) return { updated: 0 };
      const rows = yield* tx.all(THREAD_COPIES, { channelId, threadId: thread.threadId, starterId: thread.starterAlertId, ...copies });
      for (const r of rows) effects.event(channelId, r.id, 'alert.updated', now);
      return { updated: rows.length };
    });
  }

  changeReactions(link: ChatLinkRef, alertId: string, change: (current: ChatReaction[]) => ChatReaction[], now: number) {
    const { channelId } = link;
    return this.units.run(function* (tx, effects) {
      const row = yield* tx.get(REACTIONS_OF, { alertId, channelId });
      if (!row) return false;
      const next = change(row.reactionsJson ? (JSON.parse(row.reactionsJson) as ChatReaction[]) : []).filter((r) => r.count > 0);
      const json = next.length > 0 ? JSON.stringify(next) : null;
      if (json === row.reactionsJson) return false;
      yield* tx.run(SET_REACTIONS, { alertId, channelId, json, count: next.reduce((n, r) => n + r.count, 0) });
      effects.event(channelId, alertId, 'alert.updated', now);
      return true;
    });
  }
}

/** The JSON copies of a thread that its messages carry (`alerts.thread_json`, `alerts.tags_json`). */
export function threadCopies(thread: Pick<ChatThreadRecord, 'threadId' | 'name' | 'tags'>): { threadJson: string; tagsJson: string } {
  return { threadJson: JSON.stringify({ id: thread.threadId, name: thread.name }), tagsJson: JSON.stringify(thread.tags) };
}

/** An alert's files, positions in the given order. */
function* addFiles(tx: TransactionSteps, alertId: string, files: AttachmentRecord[]): Step<void> {
  for (let position = 0; position < files.length; position++) yield* tx.run(ADD_FILE, { alertId, position, ...files[position]! });
}
