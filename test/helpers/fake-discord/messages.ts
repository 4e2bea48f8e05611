/** How the fake builds message payloads: webhook authors, attachments, mentions, replies, and what a client may see. */
import { memberWithoutUser, snowflakeTime, type AttachmentPayload, type MemberPayload, type UserPayload } from './payloads.js';
import type { AttachmentInit, FakeChannel, FakeGuild, MessagePayload, SendMessageInit } from './types.js';

const MENTION_USER = /<@!?(\d{17,20})>/g;
const MENTION_ROLE = /<@&(\d{17,20})>/g;

/** The author Discord shows for a webhook message: a bot-flagged pseudo user with the webhook's id. */
function webhookAuthor(webhook: NonNullable<SendMessageInit['webhook']>): UserPayload {
  return {
    id: webhook.id,
    username: webhook.name,
    discriminator: '0000',
    global_name: null,
    avatar: webhook.avatar ?? null,
    bot: true,
    public_flags: 0,
    flags: 0,
  };
}

/** The attachment object of a message; `url` is where the bytes are (the fake CDN or the init's own URL). */
export function attachmentPayload(init: AttachmentInit, id: string, url: string, size: number): AttachmentPayload {
  const att: AttachmentPayload = { id, filename: init.filename, size, url, proxy_url: url };
  if (init.contentType) att.content_type = init.contentType;
  if (init.width !== undefined) att.width = init.width;
  if (init.height !== undefined) att.height = init.height;
  if (init.description !== undefined) att.description = init.description;
  return att;
}

/** The replied-to message as embedded in a reply: a copy without its own `referenced_message`. */
function stripReference(m: MessagePayload): MessagePayload {
  const { referenced_message: _r, ...rest } = structuredClone(m);
  return rest;
}

/** The replied-to author a reply pinged (kept in `mentions`), so an edit keeps the ping. */
export function pingedReplyAuthor(message: MessagePayload): UserPayload | undefined {
  if (message.type !== 19 || !message.referenced_message) return undefined;
  return message.mentions.find((u) => u.id === message.referenced_message?.author.id);
}

/** Fill `mentions`, `mention_roles` and `mention_everyone` from the content, as Discord does. */
export function fillMentions(
  message: MessagePayload,
  guild: FakeGuild | undefined,
  users: ReadonlyMap<string, UserPayload>,
  replyAuthor?: UserPayload,
): void {
  const content = message.content;
  const mentioned = new Map<string, UserPayload & { member?: MemberPayload }>();
  const addUser = (user: UserPayload) => {
    const m = guild?.members.get(user.id);
    mentioned.set(user.id, m ? { ...user, member: memberWithoutUser(m) } : { ...user });
  };
  if (replyAuthor) addUser(replyAuthor);
  for (const match of content.matchAll(MENTION_USER)) {
    const user = users.get(match[1]!);
    if (user) addUser(user);
  }
  const roles = new Set<string>();
  for (const match of content.matchAll(MENTION_ROLE)) {
    if (guild?.roles.some((r) => r.id === match[1] && r.id !== guild.id)) roles.add(match[1]!);
  }
  message.mentions = [...mentioned.values()];
  message.mention_roles = [...roles];
  message.mention_everyone = /@(everyone|here)\b/.test(content);
}

/**
 * Discord empties content/embeds/attachments/components for apps without the message content
 * intent, except for DMs, the bot's own messages and messages that mention the bot.
 */
export function visibleMessage(message: MessagePayload, hasContentIntent: boolean, botUserId: string): MessagePayload {
  const copy = structuredClone(message);
  if (hasContentIntent) return copy;
  const exempt = !message.guild_id || message.author.id === botUserId || message.mentions.some((u) => u.id === botUserId);
  if (!exempt) {
    copy.content = '';
    copy.embeds = [];
    copy.attachments = [];
    copy.components = [];
  }
  if (copy.referenced_message) copy.referenced_message = visibleMessage(copy.referenced_message, false, botUserId);
  return copy;
}

/** Where a new message goes: its id, channel, guild (none for a DM) and the known users. */
export interface MessageContext {
  id: string;
  channel: FakeChannel;
  guild: FakeGuild | undefined;
  users: ReadonlyMap<string, UserPayload>;
}

/** A new message as Discord stores it: author (user or webhook), member, attachments, reply reference, mentions. */
export function composeMessage(init: SendMessageInit, ctx: MessageContext, attach: (a: AttachmentInit) => AttachmentPayload): MessagePayload {
  const { id, channel, guild } = ctx;
  const guildId = channel.payload.guild_id;
  let author: UserPayload;
  let member: MemberPayload | undefined;
  if (init.webhook) {
    author = webhookAuthor(init.webhook);
  } else {
    if (!init.authorId) throw new Error('sendMessage: authorId or webhook required');
    const user = ctx.users.get(init.authorId);
    if (!user) throw new Error(`sendMessage: unknown user ${init.authorId}`);
    author = user;
    const m = guild?.members.get(user.id);
    if (m) member = memberWithoutUser(m);
  }

  const message: MessagePayload = {
    id,
    channel_id: channel.payload.id,
    author,
    content: init.content ?? '',
    timestamp: new Date(snowflakeTime(id)).toISOString(),
    edited_timestamp: null,
    tts: init.tts ?? false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: (init.attachments ?? []).map(attach),
    embeds: init.embeds ?? [],
    components: [],
    pinned: false,
    type: 0,
    flags: 0,
  };
  if (guildId) message.guild_id = guildId;
  if (member) message.member = member;
  if (init.webhook) message.webhook_id = init.webhook.id;

  let replyAuthor: UserPayload | undefined;
  if (init.replyTo) {
    const ref = messageById(channel.messages, init.replyTo) ?? null;
    message.type = 19;
    message.message_reference = { type: 0, message_id: init.replyTo, channel_id: channel.payload.id, ...(guildId ? { guild_id: guildId } : {}) };
    message.referenced_message = ref ? stripReference(ref) : null;
    if (ref && init.replyPing !== false && !ref.webhook_id) replyAuthor = ref.author;
  }
  fillMentions(message, guild, ctx.users, replyAuthor);
  return message;
}

/** A message by id, searched from the newest: replies, reactions and edits mostly touch recent messages, and a bench's channel holds tens of thousands. */
export function messageById(messages: readonly MessagePayload[], id: string): MessagePayload | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.id === id) return messages[i];
  return undefined;
}
