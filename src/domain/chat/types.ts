/**
 * Plain inputs of the chat bridge. The Discord listeners map discord.js objects
 * to these and nothing below src/discord knows about discord.js, so the ingest
 * is testable with plain objects.
 */

export type ChatRole = 'owner' | 'bot' | 'member';

/** Stored as `alerts.author_json`; rendered as the chat shape's `author` (src/domain/alert-view.ts). */
export interface ChatAuthor {
  id: string;
  /** Server display name (nick, else global name, else username); a webhook's own name. */
  name: string;
  bot: boolean;
  role: ChatRole;
}

/** One file of a chat message, still on the chat platform's CDN. */
export interface ChatAttachmentInput {
  url: string;
  name: string;
  /** Bytes as announced by the platform (0 when unknown). */
  size: number;
  contentType: string | null;
}

/** A chat message, already resolved to names (mentions, author display name). */
export interface ChatMessageInput {
  /** The platform's message id (a Discord snowflake). */
  messageId: string;
  createdAt: number;
  editedAt: number | null;
  /** Text with mentions resolved; null when the message holds only files. */
  text: string | null;
  author: ChatAuthor;
  /**
   * Set when the message is a reply. `author`/`text` describe the referenced
   * message when the platform sent it along (text resolved like a message);
   * null when unknown, in which case the stored copy is used if there is one.
   */
  replyTo: { messageId: string; author: string | null; text: string | null } | null;
  attachments: ChatAttachmentInput[];
  /** The thread or forum post the message is in (or starts); absent or null for a message of the channel itself. */
  thread?: ChatThreadInput | null;
  /** Reaction counts as the message object carries them (exact after a fetch); absent: none known. */
  reactions?: ChatReactionInput[];
}

/** A thread or forum post under a connected channel, as the platform shows it now. */
export interface ChatThreadInput {
  /** The thread's id (a forum post's starter message has the same id). */
  id: string;
  name: string;
  /** A forum post's applied tags, by name; [] elsewhere. */
  tags: string[];
  archived: boolean;
}

/** One emoji's count: a unicode emoji as the character, a custom emoji as `:name:`. */
export interface ChatReactionInput {
  emoji: string;
  count: number;
}

/** A reaction event, applied to the stored counts (no per-user data is kept). */
export type ReactionChange =
  | { kind: 'add' | 'remove'; emoji: string }
  | { kind: 'remove-emoji'; emoji: string }
  | { kind: 'remove-all' };

/** A row of `discord_links`. */
export interface DiscordLink {
  channelId: string;
  discordChannelId: string;
  guildId: string | null;
  guildName: string | null;
  discordChannelName: string | null;
  syncedUntil: string | null;
  createdAt: number;
}
