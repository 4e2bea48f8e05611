import type Database from 'better-sqlite3';
import type { Accounts } from '../accounts.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../errors.js';
import { isSnowflake } from './text.js';
import type { DiscordLink } from './types.js';

const LINK_COLUMNS = `channel_id AS channelId, discord_channel_id AS discordChannelId, guild_id AS guildId,
  guild_name AS guildName, discord_channel_name AS discordChannelName, synced_until AS syncedUntil, created_at AS createdAt`;

/** What the CLI prints for a link: names are null until the bot has seen the channel. */
export interface LinkSummary {
  channelId: string;
  channelSlug: string;
  discordChannelId: string;
  guildId: string | null;
  guildName: string | null;
  channelName: string | null;
}

/**
 * The `discord_links` table: which Alertbridge channel mirrors which Discord
 * channel. Written by the admin CLI (connect/disconnect) and by the bridge
 * (names it learns, the sync mark). The bridge re-reads it periodically, so a
 * connection made while the bot runs is picked up without a restart.
 */
export class DiscordLinks {
  private readonly s;

  constructor(
    private readonly sqlite: Database.Database,
    private readonly accounts: Accounts,
    private readonly clock: Clock,
  ) {
    const p = (sql: string) => sqlite.prepare(sql);
    this.s = {
      all: p(`SELECT ${LINK_COLUMNS} FROM discord_links ORDER BY created_at, channel_id`),
      byChannel: p(`SELECT ${LINK_COLUMNS} FROM discord_links WHERE channel_id = ?`),
      byDiscord: p(`SELECT ${LINK_COLUMNS} FROM discord_links WHERE discord_channel_id = ?`),
      insert: p('INSERT INTO discord_links (channel_id, discord_channel_id, created_at) VALUES (?, ?, ?)'),
      remove: p('DELETE FROM discord_links WHERE channel_id = ?'),
      messages: p("SELECT count(*) AS n FROM alerts WHERE channel_id = ? AND kind = 'chat'"),
      names: p(
        `UPDATE discord_links SET guild_id = @guildId, guild_name = @guildName, discord_channel_name = @channelName
         WHERE channel_id = @channelId AND discord_channel_id = @discordChannelId
           AND (guild_id IS NOT @guildId OR guild_name IS NOT @guildName OR discord_channel_name IS NOT @channelName)`,
      ),
      // Only forward, and only while the link still points at the same Discord channel.
      mark: p(
        `UPDATE discord_links SET synced_until = @messageId
         WHERE channel_id = @channelId AND discord_channel_id = @discordChannelId
           AND (synced_until IS NULL OR CAST(synced_until AS INTEGER) < CAST(@messageId AS INTEGER))`,
      ),
    };
  }

  list(): DiscordLink[] {
    return this.s.all.all() as DiscordLink[];
  }

  /**
   * Binds a channel to a Discord text channel. Idempotent for the same pair;
   * refuses a Discord channel that already feeds another channel, and a channel
   * that is already bound to another Discord channel (disconnect it first).
   */
  connect(channelRef: string, discordChannelId: string): LinkSummary & { created: boolean } {
    const id = discordChannelId.trim();
    if (!isSnowflake(id)) {
      throw new AppError('invalid-body', `--discord-channel must be a Discord channel id (a 17-20 digit snowflake; right-click the channel, Copy Channel ID), got "${discordChannelId}"`);
    }
    const channel = this.accounts.requireChannel(channelRef);
    const result = this.sqlite.transaction(() => {
      const current = this.s.byChannel.get(channel.id) as DiscordLink | undefined;
      if (current) {
        if (current.discordChannelId === id) return { ...summary(current, channel.slug), created: false };
        throw new AppError('discord-link-taken', `channel ${channel.slug} is already connected to Discord channel ${current.discordChannelId}; run "channel disconnect-discord --channel ${channel.slug}" first`);
      }
      const other = this.s.byDiscord.get(id) as DiscordLink | undefined;
      if (other) {
        throw new AppError('discord-link-taken', `Discord channel ${id} already feeds channel ${other.channelId}: one Discord channel feeds one channel`);
      }
      this.s.insert.run(channel.id, id, this.clock.now());
      return { ...summary(this.s.byChannel.get(channel.id) as DiscordLink, channel.slug), created: true };
    })();
    this.accounts.channelsChanged();
    return result;
  }

  /** Unbinds a channel. The messages already stored stay readable. */
  disconnect(channelRef: string): { channelId: string; discordChannelId: string; disconnected: true; messagesKept: number } {
    const channel = this.accounts.requireChannel(channelRef);
    const current = this.s.byChannel.get(channel.id) as DiscordLink | undefined;
    if (!current) throw new AppError('not-found', `channel ${channel.slug} is not connected to Discord`);
    this.s.remove.run(channel.id);
    this.accounts.channelsChanged();
    return {
      channelId: channel.id,
      discordChannelId: current.discordChannelId,
      disconnected: true,
      messagesKept: (this.s.messages.get(channel.id) as { n: number }).n,
    };
  }

  status(channelRef: string) {
    const channel = this.accounts.requireChannel(channelRef);
    const link = this.s.byChannel.get(channel.id) as DiscordLink | undefined;
    const messages = (this.s.messages.get(channel.id) as { n: number }).n;
    if (!link) return { channelId: channel.id, channelSlug: channel.slug, connected: false, messages };
    return { ...summary(link, channel.slug), connected: true, syncedUntil: link.syncedUntil, messages };
  }

  /** Records the names the bot saw; true when something changed. Call inside a write (batcher). */
  setNames(link: Pick<DiscordLink, 'channelId' | 'discordChannelId'>, names: { guildId: string | null; guildName: string | null; channelName: string | null }): boolean {
    return this.s.names.run({ channelId: link.channelId, discordChannelId: link.discordChannelId, ...names }).changes > 0;
  }

  /** Moves `synced_until` forward (never back). Call inside a write (batcher). */
  advanceMark(link: Pick<DiscordLink, 'channelId' | 'discordChannelId'>, messageId: string): boolean {
    return this.s.mark.run({ channelId: link.channelId, discordChannelId: link.discordChannelId, messageId }).changes > 0;
  }
}

function summary(link: DiscordLink, channelSlug: string): LinkSummary {
  return {
    channelId: link.channelId,
    channelSlug,
    discordChannelId: link.discordChannelId,
    guildId: link.guildId,
    guildName: link.guildName,
    channelName: link.discordChannelName,
  };
}
