import type Database from 'better-sqlite3';
import type { DiscordLinkRows } from '../domain/chat/links.js';
import type { DiscordLink } from '../domain/chat/types.js';

const LINK_COLUMNS = `channel_id AS channelId, discord_channel_id AS discordChannelId, guild_id AS guildId,
  guild_name AS guildName, discord_channel_name AS discordChannelName, synced_until AS syncedUntil, created_at AS createdAt`;

type LinkKey = Pick<DiscordLink, 'channelId' | 'discordChannelId'>;

/** The `discord_links` table in SQLite. */
export class SqliteDiscordLinkRows implements DiscordLinkRows {
  private readonly s;
  private readonly tx: (fn: () => void) => void;

  constructor(sqlite: Database.Database) {
    this.s = {
      all: sqlite.prepare<[], DiscordLink>(`SELECT ${LINK_COLUMNS} FROM discord_links ORDER BY created_at, channel_id`),
      byChannel: sqlite.prepare<[string], DiscordLink>(`SELECT ${LINK_COLUMNS} FROM discord_links WHERE channel_id = ?`),
      byDiscord: sqlite.prepare<[string], DiscordLink>(`SELECT ${LINK_COLUMNS} FROM discord_links WHERE discord_channel_id = ?`),
      insert: sqlite.prepare<[string, string, number]>('INSERT INTO discord_links (channel_id, discord_channel_id, created_at) VALUES (?, ?, ?)'),
      remove: sqlite.prepare<[string]>('DELETE FROM discord_links WHERE channel_id = ?'),
      // The CLI's summaries are synchronous; the alert store's chatMessageCount is the async twin.
      messages: sqlite.prepare<[string], number>("SELECT count(*) FROM alerts WHERE channel_id = ? AND kind = 'chat'").pluck(),
      names: sqlite.prepare<[LinkKey & { guildId: string | null; guildName: string | null; channelName: string | null }]>(
        `UPDATE discord_links SET guild_id = @guildId, guild_name = @guildName, discord_channel_name = @channelName
         WHERE channel_id = @channelId AND discord_channel_id = @discordChannelId
           AND (guild_id IS NOT @guildId OR guild_name IS NOT @guildName OR discord_channel_name IS NOT @channelName)`,
      ),
      // Only forward, and only while the link still points at the same Discord channel.
      mark: sqlite.prepare<[LinkKey & { messageId: string }]>(
        `UPDATE discord_links SET synced_until = @messageId
         WHERE channel_id = @channelId AND discord_channel_id = @discordChannelId
           AND (synced_until IS NULL OR CAST(synced_until AS INTEGER) < CAST(@messageId AS INTEGER))`,
      ),
    };
    const t = sqlite.transaction((fn: () => void) => fn());
    this.tx = (fn) => t.immediate(fn);
  }

  all() {
    return this.s.all.all();
  }

  byChannel(channelId: string) {
    return this.s.byChannel.get(channelId);
  }

  connect<R>(channelId: string, discordChannelId: string, now: number, decide: (current: DiscordLink | undefined, other: DiscordLink | undefined) => R | 'insert'): R | DiscordLink {
    let result!: R | DiscordLink;
    this.tx(() => {
      const decision = decide(this.s.byChannel.get(channelId), this.s.byDiscord.get(discordChannelId));
      if (decision !== 'insert') {
        result = decision;
        return;
      }
      this.s.insert.run(channelId, discordChannelId, now);
      const created = this.s.byChannel.get(channelId);
      if (!created) throw new Error(`the link of ${channelId} was just inserted and is not there`);
      result = created;
    });
    return result;
  }

  remove(channelId: string): void {
    this.s.remove.run(channelId);
  }

  chatMessageCount(channelId: string): number {
    return this.s.messages.get(channelId) ?? 0;
  }

  setNames(link: LinkKey, names: { guildId: string | null; guildName: string | null; channelName: string | null }): boolean {
    return this.s.names.run({ channelId: link.channelId, discordChannelId: link.discordChannelId, ...names }).changes > 0;
  }

  advanceMark(link: LinkKey, messageId: string): boolean {
    return this.s.mark.run({ channelId: link.channelId, discordChannelId: link.discordChannelId, messageId }).changes > 0;
  }
}
