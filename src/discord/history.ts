import { ChannelType, type Client, type Collection, type Message } from 'discord.js';
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
