import type { AlertRow, AttachmentRecord, AttachmentRow } from './alert-rows.js';

// The chat side of the alert store (src/domain/alert-store.ts re-exports it): the rows the Discord
// bridge writes and the thread reads the threads endpoint and the feed use.

/** The Alertbridge channel and the Discord channel it mirrors, as a write sees it. */
export interface ChatLinkRef {
  channelId: string;
  discordChannelId: string;
}

/** The stored message a reply points at, when the platform did not send it along. */
export interface ReplyParent {
  authorJson: string | null;
  message: string | null;
}

export interface NewChatMessage {
  alertId: string;
  messageId: string;
  text: string | null;
  authorJson: string;
  /**
   * The reply's stored JSON, built by the domain. `parentId`: the stored message it needs to build
   * it (null: none), looked up inside the unit, so it may be one stored earlier in the same batch;
   * naming it up front lets an engine whose reads are asynchronous fetch it before building.
   */
  reply: { parentId: string | null; json(parent: ReplyParent | undefined): string } | null;
  activityKey: string;
  createdAt: number;
  updatedAt: number;
  attachments: AttachmentRecord[];
  /** The thread or forum post (`alerts.thread_*`, JSON built by the domain); null outside threads. */
  thread?: { id: string; json: string; tagsJson: string } | null;
  /** The reaction summary as JSON (absent or null: none) and its total. */
  reactionsJson?: string | null;
  reactionCount?: number;
}

/** A thread or forum post as `chat_threads` keeps it; `json`/`tagsJson` are the copies messages carry. */
export interface ChatThreadRecord {
  threadId: string;
  name: string;
  tags: string[];
  archived: boolean;
  /** The message the thread was started from (a forum post's starter; in a text channel, the parent message), same id. */
  starterAlertId: string;
}

/** The names the bot saw for a linked Discord channel (null while unknown). */
export interface ChatLinkNames {
  guildId: string | null;
  guildName: string | null;
  channelName: string | null;
}

export interface ChatMessageWrites {
  /** The alert ids among these that are stored. */
  storedIds(alertIds: string[]): Promise<Set<string>>;
  /**
   * Inserts the messages not stored yet, in order, while the link still holds,
   * with their attachments and change events (one unit); `advanceMarkTo` moves
   * the link's sync mark forward (never back) in the same unit, so the mark
   * never covers a message that is not stored. `skippedWithFiles` counts
   * messages with files that were not inserted (their files must not be kept).
   */
  insertChatMessages(link: ChatLinkRef, messages: NewChatMessage[], now: number, opts?: { advanceMarkTo?: string }): Promise<{ created: number; skippedWithFiles: number }>;
  /** Moves the link's sync mark forward (never back) with no messages to store (one unit); whether it moved. */
  advanceMark(link: ChatLinkRef, messageId: string): Promise<boolean>;
  /** Records the names the bot saw for the link (one unit); whether anything changed. */
  setLinkNames(link: ChatLinkRef, names: ChatLinkNames): Promise<boolean>;
  /** The stored text, edit time and files of a message. */
  chatMessage(alertId: string, channelId: string): Promise<{ message: string | null; updatedAt: number; attachments: AttachmentRow[] } | undefined>;
  /** Updates the text and, when `files` is given, replaces the files (released keys returned). False when the message is gone. */
  editChatMessage(
    link: ChatLinkRef,
    alertId: string,
    edit: { text: string | null; editedAt: number; files: AttachmentRecord[] | null; now: number },
  ): Promise<{ updated: boolean; released: string[] }>;
  /** Deletes messages with their attachments (read exceptions cascade); returns how many and the released media keys. */
  removeChatMessages(link: ChatLinkRef, alertIds: string[], now: number): Promise<{ removed: number; released: string[] }>;
  /** Chat messages stored in a channel (the CLI's disconnect summary). */
  chatMessageCount(channelId: string): Promise<number>;
  /**
   * Records a thread's name, tags and archived flag, and rewrites the copies its messages (and its
   * starter message) carry, with an `alert.updated` event each that changed (one unit). No-op when
   * the link is gone.
   */
  saveThread(link: ChatLinkRef, thread: ChatThreadRecord, now: number): Promise<{ updated: number }>;
  /** A page of a channel's threads in the asked order (the threads endpoint). */
  threadPage(channelId: string, q: ThreadPageQuery): Promise<ThreadRow[]>;
  /** Each listed thread's earliest stored message, message count and last message time (threads without messages are left out). */
  threadHeads(channelId: string, threadIds: readonly string[]): Promise<ThreadHead[]>;
  /** Up to `limit` messages of one thread, oldest first; with `after`, only those after that alert id. */
  threadMessages(channelId: string, threadId: string, limit: number, after?: string): Promise<AlertRow[]>;
  /**
   * Replaces a message's reaction summary with what `change` makes of the stored one (one unit,
   * the row locked): false when the message is not stored or nothing changed.
   */
  changeReactions(link: ChatLinkRef, alertId: string, change: (current: ChatReaction[]) => ChatReaction[], now: number): Promise<boolean>;
}

export interface ThreadHead {
  threadId: string;
  /** The alert id of the thread's earliest stored message: the starter when it is stored. */
  headId: string;
  messageCount: number;
  lastMessageAt: number;
}

export interface ThreadPageQuery {
  sort: 'activity' | 'reactions';
  tag: string | null;
  /** The last row of the previous page: its sort key and thread id. */
  cursor: { key: number; id: string } | null;
  limit: number;
}

export interface ThreadRow {
  id: string;
  name: string;
  tags: string[];
  starterAlertId: string | null;
  messageCount: number;
  lastMessageAt: number | null;
  reactionCount: number;
  sortKey: number;
}

/** One emoji's count on a message (`alerts.reactions_json`). */
export interface ChatReaction {
  emoji: string;
  count: number;
}

