import type Database from 'better-sqlite3';
import type { DiscordLinkRows, DiscordLinkUnitWrites, LinkNames } from '../domain/chat/links.js';
import type { DiscordLink } from '../domain/chat/types.js';

const LINK_COLUMNS = `channel_id AS channelId, discord_channel_id AS discordChannelId, guild_id AS guildId,
  guild_name AS guildName, discord_channel_name AS discordChannelName, synced_until AS syncedUntil, created_at AS createdAt`;

type LinkKey = Pick<DiscordLink, 'channelId' | 'discordChannelId'>;

/** The `discord_links` table in SQLite (the PostgreSQL twin: src/db/pg/discord-link-rows.ts). */
export class SqliteDiscordLinkRows implements DiscordLinkRows, DiscordLinkUnitWrites {
  private readonly s;
  private readonly tx: (fn: () => void) => void;

  constructor(sqlite: Database.Database) {
    this.s = {
      all: sqlite.prepare<[], DiscordLink>(`SELECT ${LINK_COLUMNS} FROM discord_links ORDER BY created_at, channel_id`),
      byChannel: sqlite.prepare<[string], DiscordLink>(`SELECT ${LINK_COLUMNS} FROM discord_links WHERE channel_id = ?`),
      byDiscord: sqlite.prepare<[string], DiscordLink>(`SELECT ${LINK_COLUMNS} FROM discord_links WHERE discord_channel_id = ?`),
      insert: sqlite.prepare<[string, string, number]>('INSERT INTO discord_links (channel_id, discord_channel_id, created_at) VALUES (?, ?, ?)'),
      remove: sqlite.prepare<[string]>('DELETE FROM discord_links WHERE channel_id = ?'),
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

  // Synchronous inside (better-sqlite3), Promises outside: the seam a PostgreSQL engine plugs into.
  all(): Promise<DiscordLink[]> {
    return Promise.resolve(this.s.all.all());
  }

  byChannel(channelId: string): Promise<DiscordLink | undefined> {
    return Promise.resolve(this.s.byChannel.get(channelId));
  }

  /** BEGIN IMMEDIATE: two connects cannot interleave their check and insert. */
  connect<R>(channelId: string, discordChannelId: string, now: number, decide: (current: DiscordLink | undefined, other: DiscordLink | undefined) => R | 'insert'): Promise<R | DiscordLink> {
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
    return Promise.resolve(result);
  }

  remove(channelId: string): Promise<void> {
    this.s.remove.run(channelId);
    return Promise.resolve();
  }

  chatMessageCount(channelId: string): Promise<number> {
    return Promise.resolve(this.s.messages.get(channelId) ?? 0);
  }

  /** DiscordLinkUnitWrites: called inside the chat ingest's store units. */
  setNames(link: LinkKey, names: LinkNames): boolean {
    return this.s.names.run({ channelId: link.channelId, discordChannelId: link.discordChannelId, ...names }).changes > 0;
  }

  advanceMark(link: LinkKey, messageId: string): boolean {
    return this.s.mark.run({ channelId: link.channelId, discordChannelId: link.discordChannelId, messageId }).changes > 0;
  }
}
