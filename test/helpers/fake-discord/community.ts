/**
 * Threads, forum/media channels with tags, and reactions of the fake Discord, following the Discord API
 * reference (Threads topic, Channel and Message resources, Gateway events): THREAD_CREATE / UPDATE / DELETE,
 * THREAD_LIST_SYNC, THREAD_MEMBERS_UPDATE, MESSAGE_REACTION_ADD / REMOVE / REMOVE_ALL / REMOVE_EMOJI, and the
 * REST views the bot reads (`/guilds/:id/threads/active`, `/channels/:id/threads/archived/public`,
 * `/channels/:id/users/@me/threads/archived/private`, `/channels/:id/thread-members`).
 *
 * A thread is a channel of the fake (in `channels`, with `thread` state): messages go to it with
 * `fake.sendMessage({ channelId: thread.id, ... })` as to any channel.
 */
import { required } from './http.js';
import { messageById } from './messages.js';
import { ChannelType, compareSnowflakes, Intent, type ChannelPayload, type ForumTagPayload } from './payloads.js';
import type { EmojiPayload, FakeChannel, FakeGuild, MessagePayload, ReactionPayload, SendMessageInit } from './types.js';

/** What the community part reads and does on the fake. */
export interface CommunityHost {
  readonly guilds: Map<string, FakeGuild>;
  readonly channels: Map<string, FakeChannel>;
  readonly botUser: { id: string };
  now(): number;
  nextId(): string;
  sendMessage(init: SendMessageInit): MessagePayload;
  addTextChannel(guildId: string, init: { id?: string; name: string }): ChannelPayload;
}

type Dispatch = (t: string, d: object, intent?: number) => void;

export interface ThreadInit {
  name: string;
  /** The user who opens it (default: the bot). */
  ownerId?: string;
  /** A public thread started from this message of the parent (its id becomes the thread's id). */
  fromMessageId?: string;
  private?: boolean;
  /** Dispatch THREAD_CREATE (default true); false = created while the bot was away. */
  dispatch?: boolean;
}

/** A thread as the REST thread lists return it: the channel, and the bot's thread member when it joined. */
const THREAD_TYPES: ReadonlySet<number> = new Set([ChannelType.AnnouncementThread, ChannelType.PublicThread, ChannelType.PrivateThread]);

export class FakeCommunity {
  /** Users who reacted, per message and emoji key (`id` of a custom emoji, else its name). */
  private readonly reactors = new Map<string, Map<string, { emoji: EmojiPayload; users: Set<string> }>>();

  constructor(
    private readonly host: CommunityHost,
    private readonly dispatch: Dispatch,
  ) {}

  /** A forum (type 15) or media (type 16) channel with tags (names; ids are generated). */
  addForumChannel(guildId: string, init: { name: string; tags?: string[]; media?: boolean }): ChannelPayload {
    const channel = this.host.addTextChannel(guildId, { name: init.name });
    // Discord would send the forum type in CHANNEL_CREATE; the fake's text channel is turned into one before any client asks again.
    channel.type = init.media ? ChannelType.GuildMedia : ChannelType.GuildForum;
    channel.available_tags = (init.tags ?? []).map((name) => ({ id: this.host.nextId(), name, moderated: false, emoji_id: null, emoji_name: null }));
    this.dispatch('CHANNEL_UPDATE', channel, Intent.Guilds);
    return channel;
  }

  tagId(forumId: string, name: string): string {
    const tag = this.channel(forumId).available_tags?.find((t) => t.name === name);
    if (!tag) throw new Error(`no tag ${name} in forum ${forumId}`);
    return tag.id;
  }

  /** A thread under a text or announcement channel. */
  addThread(parentId: string, init: ThreadInit): ChannelPayload {
    const parent = this.channel(parentId);
    const type =
      parent.type === ChannelType.GuildAnnouncement ? ChannelType.AnnouncementThread : init.private ? ChannelType.PrivateThread : ChannelType.PublicThread;
    return this.openThread(parent, { ...init, type, id: init.fromMessageId });
  }

  /** A forum post: the thread and its starter message (same id), with tags applied by name. */
  addForumPost(forumId: string, init: { title: string; authorId: string; content: string; tags?: string[]; dispatch?: boolean }) {
    const forum = this.channel(forumId);
    const appliedTags = (init.tags ?? []).map((t) => this.tagId(forumId, t));
    const thread = this.openThread(forum, { name: init.title, ownerId: init.authorId, type: ChannelType.PublicThread, dispatch: init.dispatch, appliedTags });
    const starter = this.host.sendMessage({ channelId: thread.id, id: thread.id, authorId: init.authorId, content: init.content, dispatch: init.dispatch });
    return { thread, starter };
  }

  /** Rename, archive, unarchive, or change a post's tags (by name); dispatches THREAD_UPDATE. */
  updateThread(threadId: string, change: { name?: string; archived?: boolean; tags?: string[]; dispatch?: boolean }): ChannelPayload {
    const thread = this.thread(threadId);
    if (change.name !== undefined) thread.name = change.name;
    if (change.archived !== undefined) {
      thread.thread_metadata!.archived = change.archived;
      thread.thread_metadata!.archive_timestamp = new Date(this.host.now()).toISOString();
    }
    if (change.tags !== undefined) thread.applied_tags = change.tags.map((t) => this.tagId(thread.parent_id!, t));
    if (change.dispatch !== false) this.dispatchThread('THREAD_UPDATE', thread);
    return thread;
  }

  deleteThread(threadId: string): void {
    const thread = this.thread(threadId);
    const guild = required(this.host.guilds, thread.guild_id!, 'guild');
    guild.threadIds = guild.threadIds.filter((id) => id !== threadId);
    this.host.channels.delete(threadId);
    this.dispatchThread('THREAD_DELETE', { id: thread.id, guild_id: thread.guild_id, parent_id: thread.parent_id, type: thread.type } as ChannelPayload);
  }

  /** Adds a user to a thread (THREAD_MEMBERS_UPDATE); adding the bot to a private thread makes it visible (THREAD_CREATE). */
  addThreadMember(threadId: string, userId: string): void {
    const fake = required(this.host.channels, threadId, 'thread');
    const thread = this.thread(threadId);
    fake.thread!.members.add(userId);
    thread.member_count = fake.thread!.members.size;
    if (userId === this.host.botUser.id && fake.thread!.private) this.dispatch('THREAD_CREATE', { ...thread, newly_created: false, member: this.memberOf(thread, userId) }, Intent.Guilds);
    this.dispatch(
      'THREAD_MEMBERS_UPDATE',
      { id: threadId, guild_id: thread.guild_id, member_count: thread.member_count, added_members: [this.memberOf(thread, userId)] },
      Intent.Guilds,
    );
  }

  /** THREAD_LIST_SYNC for a guild: its active threads the bot can see (Discord sends it when the bot gains access to a channel). */
  syncThreadList(guildId: string): void {
    const threads = this.activeThreads(guildId);
    this.dispatch('THREAD_LIST_SYNC', { guild_id: guildId, threads, members: this.botMembers(threads) }, Intent.Guilds);
  }

  /** A reaction by a user; MESSAGE_REACTION_ADD (with `member` in a guild). `emoji` is a unicode character or `{ id, name }`. */
  react(channelId: string, messageId: string, userId: string, emoji: string | { id: string; name: string }, opts: { dispatch?: boolean } = {}): void {
    const e: EmojiPayload = typeof emoji === 'string' ? { id: null, name: emoji } : { id: emoji.id, name: emoji.name, animated: false };
    const message = this.message(channelId, messageId);
    const byEmoji = this.reactors.get(messageId) ?? new Map<string, { emoji: EmojiPayload; users: Set<string> }>();
    this.reactors.set(messageId, byEmoji);
    const entry = byEmoji.get(keyOf(e)) ?? { emoji: e, users: new Set<string>() };
    byEmoji.set(keyOf(e), entry);
    if (entry.users.has(userId)) return; // Discord ignores a repeated reaction
    entry.users.add(userId);
    this.summarise(message);
    if (opts.dispatch === false) return;
    const member = message.guild_id ? this.host.guilds.get(message.guild_id)?.members.get(userId) : undefined;
    this.dispatch(
      'MESSAGE_REACTION_ADD',
      { user_id: userId, channel_id: channelId, message_id: messageId, guild_id: message.guild_id, member, emoji: e, message_author_id: message.author.id, burst: false, burst_colors: [], type: 0 },
      Intent.GuildMessageReactions,
    );
  }

  unreact(channelId: string, messageId: string, userId: string, emoji: string | { id: string; name: string }, opts: { dispatch?: boolean } = {}): void {
    const e: EmojiPayload = typeof emoji === 'string' ? { id: null, name: emoji } : { id: emoji.id, name: emoji.name, animated: false };
    const message = this.message(channelId, messageId);
    const entry = this.reactors.get(messageId)?.get(keyOf(e));
    if (!entry?.users.delete(userId)) return;
    this.summarise(message);
    if (opts.dispatch === false) return;
    this.dispatch(
      'MESSAGE_REACTION_REMOVE',
      { user_id: userId, channel_id: channelId, message_id: messageId, guild_id: message.guild_id, emoji: e, burst: false, type: 0 },
      Intent.GuildMessageReactions,
    );
  }

  /** A moderator clears every reaction (MESSAGE_REACTION_REMOVE_ALL) or one emoji's (MESSAGE_REACTION_REMOVE_EMOJI). */
  clearReactions(channelId: string, messageId: string, emoji?: string | { id: string; name: string }): void {
    const message = this.message(channelId, messageId);
    const base = { channel_id: channelId, message_id: messageId, guild_id: message.guild_id };
    if (emoji === undefined) {
      this.reactors.delete(messageId);
      this.summarise(message);
      this.dispatch('MESSAGE_REACTION_REMOVE_ALL', base, Intent.GuildMessageReactions);
      return;
    }
    const e: EmojiPayload = typeof emoji === 'string' ? { id: null, name: emoji } : { id: emoji.id, name: emoji.name };
    this.reactors.get(messageId)?.delete(keyOf(e));
    this.summarise(message);
    this.dispatch('MESSAGE_REACTION_REMOVE_EMOJI', { ...base, emoji: e }, Intent.GuildMessageReactions);
  }

  /** Active (not archived) threads of a guild that the bot can see. */
  activeThreads(guildId: string): ChannelPayload[] {
    const guild = required(this.host.guilds, guildId, 'guild');
    return guild.threadIds
      .map((id) => required(this.host.channels, id, 'thread'))
      .filter((c) => this.visible(c) && !c.payload.thread_metadata!.archived)
      .map((c) => c.payload);
  }

  /** `GET /channels/:id/threads/archived/{public|private}`: archived threads newest archive first, `before` an ISO time. */
  archivedThreads(parentId: string, query: Record<string, string>, privateOnes: boolean) {
    const limit = Math.min(Math.max(Number(query.limit ?? 50) || 50, 2), 100);
    // Public lists page by archive time (ISO `before`); the bot's joined private list by thread id.
    const byId = privateOnes && /^\d+$/.test(query.before ?? '');
    const before = query.before && !byId ? Date.parse(query.before) : Number.POSITIVE_INFINITY;
    const all = [...this.host.channels.values()]
      .filter((c) => c.thread && c.payload.parent_id === parentId && c.thread.private === privateOnes && this.visible(c) && c.payload.thread_metadata!.archived)
      .map((c) => c.payload)
      .filter((t) => (byId ? compareSnowflakes(t.id, query.before!) < 0 : Date.parse(t.thread_metadata!.archive_timestamp) < before))
      .sort((a, b) => Date.parse(b.thread_metadata!.archive_timestamp) - Date.parse(a.thread_metadata!.archive_timestamp) || compareSnowflakes(b.id, a.id));
    const threads = all.slice(0, limit);
    return { threads, members: this.botMembers(threads), has_more: all.length > limit };
  }

  /** Thread members of `GET /channels/:id/thread-members`. */
  threadMembers(threadId: string) {
    const fake = required(this.host.channels, threadId, 'thread');
    return [...(fake.thread?.members ?? [])].map((u) => this.memberOf(fake.payload, u));
  }

  /** The bot joins a thread (`PUT /channels/:id/thread-members/@me`). */
  join(threadId: string): void {
    const fake = required(this.host.channels, threadId, 'thread');
    if (!fake.thread || fake.thread.private) return;
    this.addThreadMember(threadId, this.host.botUser.id);
  }

  isThread(channel: FakeChannel): boolean {
    return THREAD_TYPES.has(channel.payload.type);
  }

  /** A private thread is seen only by its members (the bot has no Manage Threads). */
  visible(channel: FakeChannel): boolean {
    return !channel.thread?.private || channel.thread.members.has(this.host.botUser.id);
  }

  private openThread(parent: ChannelPayload, init: ThreadInit & { type: number; id?: string; appliedTags?: string[] }): ChannelPayload {
    const guild = required(this.host.guilds, parent.guild_id!, 'guild');
    const id = init.id ?? this.host.nextId();
    const ownerId = init.ownerId ?? this.host.botUser.id;
    const now = new Date(this.host.now()).toISOString();
    const thread: ChannelPayload = {
      id,
      type: init.type,
      guild_id: guild.id,
      name: init.name,
      position: 0,
      permission_overwrites: [],
      topic: null,
      nsfw: false,
      last_message_id: null,
      rate_limit_per_user: 0,
      parent_id: parent.id,
      flags: 0,
      owner_id: ownerId,
      message_count: 0,
      member_count: 1,
      total_message_sent: 0,
      thread_metadata: { archived: false, auto_archive_duration: 10080, archive_timestamp: now, locked: false, create_timestamp: now },
      ...(init.appliedTags ? { applied_tags: init.appliedTags } : {}),
    };
    this.host.channels.set(id, { payload: thread, messages: [], thread: { members: new Set([ownerId]), private: init.private ?? false } });
    guild.threadIds.push(id);
    if (init.dispatch !== false) this.dispatchThread('THREAD_CREATE', { ...thread, newly_created: true } as ChannelPayload);
    return thread;
  }

  /** Thread events reach sessions that can see the thread (private ones: only when the bot is a member). */
  private dispatchThread(t: string, payload: ChannelPayload): void {
    const fake = this.host.channels.get(payload.id);
    if (fake && !this.visible(fake)) return;
    this.dispatch(t, payload, Intent.Guilds);
  }

  /** Rebuilds the message's `reactions` (Discord's summary on message objects) from who reacted. */
  private summarise(message: MessagePayload): void {
    const reactions: ReactionPayload[] = [];
    for (const { emoji, users } of this.reactors.get(message.id)?.values() ?? []) {
      if (users.size === 0) continue;
      const me = users.has(this.host.botUser.id);
      reactions.push({ count: users.size, count_details: { burst: 0, normal: users.size }, me, me_burst: false, burst_colors: [], emoji });
    }
    if (reactions.length > 0) message.reactions = reactions;
    else delete message.reactions;
  }

  private botMembers(threads: ChannelPayload[]) {
    const bot = this.host.botUser.id;
    return threads.filter((t) => this.host.channels.get(t.id)?.thread?.members.has(bot)).map((t) => this.memberOf(t, bot));
  }

  private memberOf(thread: ChannelPayload, userId: string) {
    return { id: thread.id, user_id: userId, join_timestamp: new Date(this.host.now()).toISOString(), flags: 0 };
  }

  private channel(id: string): ChannelPayload {
    return required(this.host.channels, id, 'channel').payload;
  }

  private thread(id: string): ChannelPayload {
    const fake = required(this.host.channels, id, 'thread');
    if (!fake.thread) throw new Error(`${id} is not a thread`);
    return fake.payload;
  }

  private message(channelId: string, messageId: string): MessagePayload {
    const message = messageById(required(this.host.channels, channelId, 'channel').messages, messageId);
    if (!message) throw new Error(`unknown message ${messageId} in ${channelId}`);
    return message;
  }
}

function keyOf(e: EmojiPayload): string {
  return e.id ?? e.name;
}

export type { ForumTagPayload };
