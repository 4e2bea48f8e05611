import { MessageType, type AnyThreadChannel, type Channel, type Emoji, type Guild, type Message } from 'discord.js';
import { resolveMentions, type MentionLookup } from '../domain/chat/text.js';
import type { ChatAuthor, ChatMessageInput, ChatReactionInput, ChatThreadInput } from '../domain/chat/types.js';

/**
 * discord.js objects → plain chat inputs. Everything is read from the message
 * itself and its guild's caches (GUILD_CREATE brings roles, channels and, with
 * the GuildMembers intent, members): no REST call per message.
 */

/** Messages people write. Joins, pins, boosts, thread notices and the like are not feedback. */
const CONVERSATION_TYPES: ReadonlySet<MessageType> = new Set([
  MessageType.Default,
  MessageType.Reply,
  MessageType.ChatInputCommand,
  MessageType.ContextMenuCommand,
]);

/** True for a message of a server text channel worth storing (not the bot's own, not a system notice). */
export function isIngestible(message: Message, botUserId: string | undefined): message is Message<true> {
  if (!message.inGuild()) return false;
  if (botUserId !== undefined && message.author.id === botUserId) return false;
  return CONVERSATION_TYPES.has(message.type);
}

/**
 * Resolves mention ids within the message's own server only: the bot sits in
 * many servers, and its global caches would turn `<#id>` of another server's
 * (possibly private) channel into that channel's real name. Users are this
 * server's members, else the users the message itself mentions (Discord sends
 * them with it); anyone else is `@unknown-user`.
 */
export function mentionLookup(message: Message<true>): MentionLookup {
  const { guild, mentions } = message;
  return {
    user: (id) => guild.members.cache.get(id)?.displayName ?? mentions.users.get(id)?.displayName,
    role: (id) => guild.roles.cache.get(id)?.name,
    channel: (id) => {
      const c = guild.channels.cache.get(id);
      return c?.name || undefined;
    },
  };
}

/** The message text with mentions resolved; null when there is no text (files only). */
export function textOf(message: Message<true>): string | null {
  const content = message.content ?? '';
  if (content.trim() === '') return null;
  return resolveMentions(content, mentionLookup(message));
}

/** The server display name: webhook name, else nickname, else global name, else username. */
function displayNameOf(message: Message<true>): string {
  if (message.webhookId) return message.author.username;
  return message.guild.members.cache.get(message.author.id)?.displayName ?? message.author.displayName;
}

/**
 * `owner` is whoever owns the server (the operator speaking), `bot` a bot
 * account or a webhook, `member` everyone else (the real user feedback).
 */
function authorOf(message: Message<true>, guild: Guild = message.guild): ChatAuthor {
  const { author } = message;
  const bot = author.bot || message.webhookId !== null;
  const role = author.id === guild.ownerId ? 'owner' : bot ? 'bot' : 'member';
  return { id: author.id, name: displayNameOf(message), bot, role };
}

/** Maps a message. The replied-to message is read from the channel's cache (discord.js caches `referenced_message`). */
export function toChatInput(message: Message<true>): ChatMessageInput {
  let replyTo: ChatMessageInput['replyTo'] = null;
  const refId = message.type === MessageType.Reply ? message.reference?.messageId : undefined;
  if (refId) {
    const parent = message.channel.messages.cache.get(refId);
    replyTo =
      parent && !parent.partial && parent.inGuild()
        ? { messageId: refId, author: displayNameOf(parent), text: textOf(parent) }
        : { messageId: refId, author: null, text: null };
  }
  return {
    messageId: message.id,
    createdAt: message.createdTimestamp,
    editedAt: message.editedTimestamp,
    text: textOf(message),
    author: authorOf(message),
    replyTo,
    attachments: [...message.attachments.values()].map((a) => ({
      url: a.url,
      name: a.name,
      size: a.size,
      contentType: a.contentType ?? null,
    })),
    thread: threadOfMessage(message),
    reactions: reactionsOf(message),
  };
}

/**
 * The Discord channel whose link a channel's events belong to: a thread's (or forum post's) parent,
 * else the channel itself. Threads are never connected on their own.
 */
export function linkedChannelId(channel: Channel | null | undefined, fallbackId: string): string {
  return channel?.isThread() ? (channel.parentId ?? fallbackId) : fallbackId;
}

/** A thread as stored: its current name, a forum post's tag names (from the forum's tags), archived or not. */
export function toThreadInput(thread: AnyThreadChannel): ChatThreadInput {
  const parent = thread.parent;
  const available = parent && 'availableTags' in parent ? parent.availableTags : [];
  const tags = thread.appliedTags.flatMap((id) => available.filter((t) => t.id === id).map((t) => t.name));
  return { id: thread.id, name: thread.name, tags, archived: thread.archived ?? false };
}

/** The thread a message is in, or the thread started from it (same id); null for a plain channel message. */
function threadOfMessage(message: Message<true>): ChatThreadInput | null {
  if (message.channel.isThread()) return toThreadInput(message.channel);
  const started = message.hasThread ? message.thread : null;
  return started ? toThreadInput(started) : null;
}

/** The reaction counts on a message object (exact when Discord sent the message: history pages, fetches). */
export function reactionsOf(message: Message): ChatReactionInput[] {
  return [...message.reactions.cache.values()].map((r) => ({ emoji: emojiLabel(r.emoji), count: r.count ?? 0 })).filter((r) => r.count > 0);
}

/** A unicode emoji as the character, a custom emoji as `:name:`. */
export function emojiLabel(emoji: Pick<Emoji, 'id' | 'name'>): string {
  return emoji.id ? `:${emoji.name ?? 'emoji'}:` : (emoji.name ?? '?');
}
