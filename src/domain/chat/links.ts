import type { Accounts } from '../accounts.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../errors.js';
import { isSnowflake } from './text.js';
import type { DiscordLink } from './types.js';

type LinkKey = Pick<DiscordLink, 'channelId' | 'discordChannelId'>;

/** The `discord_links` rows (src/db/discord-link-rows.ts on SQLite, src/db/pg/discord-link-rows.ts on PostgreSQL). */
export interface DiscordLinkRows {
  all(): Promise<DiscordLink[]>;
  byChannel(channelId: string): Promise<DiscordLink | undefined>;
  /**
   * One transaction, serialised with every other connect: `decide` sees the channel's link and the
   * Discord channel's; 'insert' creates the link and returns it; a throw leaves nothing written.
   */
  connect<R>(channelId: string, discordChannelId: string, now: number, decide: (current: DiscordLink | undefined, other: DiscordLink | undefined) => R | 'insert'): Promise<R | DiscordLink>;
  remove(channelId: string): Promise<void>;
  chatMessageCount(channelId: string): Promise<number>;
}

export type LinkNames = { guildId: string | null; guildName: string | null; channelName: string | null };

/**
 * The bridge's standalone writes to a link (the names it saw, a sync mark with no messages to
 * store). Synchronous: the chat ingest runs them in a unit of the SQLite group commit. The mark that
 * covers stored messages is not written here but by the store's insert
 * (ChatMessageWrites.insertChatMessages, `advanceMarkTo`), in the messages' own unit on either engine.
 * ChatMessageWrites.advanceMark and setLinkNames are these two writes as units of their own, on
 * either engine (the SQLite store runs these very methods in its group commit).
 */
export interface DiscordLinkUnitWrites {
  setNames(link: LinkKey, names: LinkNames): boolean;
  advanceMark(link: LinkKey, messageId: string): boolean;
}

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
  constructor(
    private readonly rows: DiscordLinkRows,
    private readonly accounts: Pick<Accounts, 'requireChannel' | 'channelsChanged'>,
    private readonly clock: Clock,
  ) {}

  list(): Promise<DiscordLink[]> {
    return this.rows.all();
  }

  /**
   * Binds a channel to a Discord text channel. Idempotent for the same pair;
   * refuses a Discord channel that already feeds another channel, and a channel
   * that is already bound to another Discord channel (disconnect it first).
   */
  async connect(channelRef: string, discordChannelId: string): Promise<LinkSummary & { created: boolean }> {
    const id = discordChannelId.trim();
    if (!isSnowflake(id)) {
      throw new AppError('invalid-body', `--discord-channel must be a Discord channel id (a 17-20 digit snowflake; right-click the channel, Copy Channel ID), got "${discordChannelId}"`);
    }
    const channel = await this.accounts.requireChannel(channelRef);
    const result = await this.rows.connect(channel.id, id, this.clock.now(), (current, other) => {
      if (current) {
        if (current.discordChannelId === id) return { ...summary(current, channel.slug), created: false };
        throw new AppError('discord-link-taken', `channel ${channel.slug} is already connected to Discord channel ${current.discordChannelId}; run "channel disconnect-discord --channel ${channel.slug}" first`);
      }
      if (other) {
        throw new AppError('discord-link-taken', `Discord channel ${id} already feeds channel ${other.channelId}: one Discord channel feeds one channel`);
      }
      return 'insert' as const;
    });
    this.accounts.channelsChanged();
    return 'created' in result ? result : { ...summary(result, channel.slug), created: true };
  }

  /** Unbinds a channel. The messages already stored stay readable. */
  async disconnect(channelRef: string): Promise<{ channelId: string; discordChannelId: string; disconnected: true; messagesKept: number }> {
    const channel = await this.accounts.requireChannel(channelRef);
    const current = await this.rows.byChannel(channel.id);
    if (!current) throw new AppError('not-found', `channel ${channel.slug} is not connected to Discord`);
    await this.rows.remove(channel.id);
    this.accounts.channelsChanged();
    return {
      channelId: channel.id,
      discordChannelId: current.discordChannelId,
      disconnected: true,
      messagesKept: await this.rows.chatMessageCount(channel.id),
    };
  }

  async status(channelRef: string) {
    const channel = await this.accounts.requireChannel(channelRef);
    const link = await this.rows.byChannel(channel.id);
    const messages = await this.rows.chatMessageCount(channel.id);
    if (!link) return { channelId: channel.id, channelSlug: channel.slug, connected: false, messages };
    return { ...summary(link, channel.slug), connected: true, syncedUntil: link.syncedUntil, messages };
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
