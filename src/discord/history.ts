import { ChannelType, type AnyThreadChannel, type Client, type Collection, type Message, type ThreadManager } from 'discord.js';
import type { HistoryPage, HistorySource } from '../domain/chat/sync.js';
import { compareSnowflakes } from '../domain/chat/text.js';
import type { Logger } from '../lib/logger.js';
import { isIngestible, toChatInput } from './map.js';

/**
 * Channel history over Discord REST (`GET /channels/:id/messages`): one request
 * per page of 100, answered newest first and returned here oldest first.
 */
export class DiscordHistory implements HistorySource {
  constructor(
    private readonly client: Client,
    private readonly logger: Logger,
  ) {}

  async after(discordChannelId: string, after: string, limit: number): Promise<HistoryPage> {
    return this.page(discordChannelId, { after, limit });
  }

  async latest(discordChannelId: string, limit: number): Promise<HistoryPage> {
    return this.page(discordChannelId, { limit });
  }

  async threads(discordChannelId: string, archivedSinceMs: number): Promise<string[]> {
    const channel = await this.client.channels.fetch(discordChannelId);
    if (!channel || channel.isDMBased() || channel.isThread() || !('threads' in channel)) return [];
    const ids = new Set<string>();
    // Active threads come from the guild-wide list (one request), filtered to this parent by discord.js.
    for (const id of (await channel.threads.fetchActive()).threads.keys()) ids.add(id);
    await this.archived(channel.threads, 'public', archivedSinceMs, ids);
    // Private: only the archived ones the bot is a member of (listing them all needs Manage Threads).
    await this.archived(channel.threads, 'private', archivedSinceMs, ids);
    return [...ids];
  }

  /**
   * Archived threads, newest archive first, 100 per request, until one was archived
   * before `sinceMs` (public ones come sorted by archive time; joined private ones
   * by id, so those are read to the end and filtered).
   */
  private async archived(threads: ThreadManager, type: 'public' | 'private', sinceMs: number, into: Set<string>): Promise<void> {
    let before: AnyThreadChannel | undefined;
    for (;;) {
      const page = await threads.fetchArchived({ type, limit: 100, ...(before ? { before } : {}) });
      const list = [...page.threads.values()];
      for (const t of list) if ((t.archivedAt?.getTime() ?? Number.POSITIVE_INFINITY) >= sinceMs) into.add(t.id);
      const last = list.at(-1);
      if (!page.hasMore || !last) return;
      if (type === 'public' && (last.archivedAt?.getTime() ?? 0) < sinceMs) return;
      before = last;
    }
  }

  private async page(discordChannelId: string, query: { after?: string; limit: number }): Promise<HistoryPage> {
    const channel = await this.client.channels.fetch(discordChannelId);
    // A forum or media channel has no messages of its own: its posts are threads (live events bring them).
    if (channel && (channel.type === ChannelType.GuildForum || channel.type === ChannelType.GuildMedia)) return { messages: [], newestId: null, fetched: 0 };
    if (!channel || !channel.isTextBased() || channel.isDMBased() || !('messages' in channel)) {
      throw new Error(`Discord channel ${discordChannelId} is not a server text channel the bot can see`);
    }
    const fetched = (await channel.messages.fetch({ ...query, cache: false })) as Collection<string, Message>;
    const messages = [...fetched.values()].sort((a, b) => compareSnowflakes(a.id, b.id));
    const keep = messages.filter((m) => isIngestible(m, this.client.user?.id));
    await this.loadMembers(keep);
    return {
      messages: keep.map((m) => toChatInput(m as Message<true>)),
      newestId: messages.at(-1)?.id ?? null,
      fetched: messages.length,
    };
  }

  /**
   * REST history carries no `member` (unlike gateway events): fetch the authors
   * missing from the member cache in one gateway request per page, so names are
   * server display names. Members who left fall back to their user name.
   */
  private async loadMembers(messages: Message[]): Promise<void> {
    const guild = messages.find((m) => m.inGuild())?.guild;
    if (!guild) return;
    const missing = new Set<string>();
    for (const m of messages) {
      if (!m.webhookId && !guild.members.cache.has(m.author.id)) missing.add(m.author.id);
      for (const id of m.mentions.users.keys()) if (!guild.members.cache.has(id)) missing.add(id);
    }
    if (missing.size === 0) return;
    try {
      await guild.members.fetch({ user: [...missing].slice(0, 100), time: 10_000 });
    } catch (err) {
      this.logger.debug({ err, guildId: guild.id }, 'fetching members for a history page failed; using user names');
    }
  }
}
