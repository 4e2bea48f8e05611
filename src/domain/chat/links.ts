import type { Accounts } from '../accounts.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../errors.js';
import { isSnowflake } from './text.js';
import type { DiscordLink } from './types.js';

type LinkKey = Pick<DiscordLink, 'channelId' | 'discordChannelId'>;

/** The `discord_links` rows (src/db/discord-link-rows.ts). Synchronous: the CLI and the group-commit units call it. */
export interface DiscordLinkRows {
  all(): DiscordLink[];
  byChannel(channelId: string): DiscordLink | undefined;
  /** One transaction: `decide` sees the channel's link and the Discord channel's; 'insert' creates the link and returns it. */
  connect<R>(channelId: string, discordChannelId: string, now: number, decide: (current: DiscordLink | undefined, other: DiscordLink | undefined) => R | 'insert'): R | DiscordLink;
  remove(channelId: string): void;
  chatMessageCount(channelId: string): number;
  setNames(link: LinkKey, names: { guildId: string | null; guildName: string | null; channelName: string | null }): boolean;
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

  list(): DiscordLink[] {
    return this.rows.all();
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
    const result = this.rows.connect(channel.id, id, this.clock.now(), (current, other) => {
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
  disconnect(channelRef: string): { channelId: string; discordChannelId: string; disconnected: true; messagesKept: number } {
    const channel = this.accounts.requireChannel(channelRef);
    const current = this.rows.byChannel(channel.id);
    if (!current) throw new AppError('not-found', `channel ${channel.slug} is not connected to Discord`);
    this.rows.remove(channel.id);
    this.accounts.channelsChanged();
    return {
      channelId: channel.id,
      discordChannelId: current.discordChannelId,
      disconnected: true,
      messagesKept: this.rows.chatMessageCount(channel.id),
    };
  }

  status(channelRef: string) {
    const channel = this.accounts.requireChannel(channelRef);
    const link = this.rows.byChannel(channel.id);
    const messages = this.rows.chatMessageCount(channel.id);
    if (!link) return { channelId: channel.id, channelSlug: channel.slug, connected: false, messages };
    return { ...summary(link, channel.slug), connected: true, syncedUntil: link.syncedUntil, messages };
  }

  /** Records the names the bot saw; true when something changed. Call inside a write (batcher). */
  setNames(link: Pick<DiscordLink, 'channelId' | 'discordChannelId'>, names: { guildId: string | null; guildName: string | null; channelName: string | null }): boolean {
    return this.rows.setNames(link, names);
  }

  /** Moves `synced_until` forward (never back). Call inside a write (batcher). */
  advanceMark(link: Pick<DiscordLink, 'channelId' | 'discordChannelId'>, messageId: string): boolean {
    return this.rows.advanceMark(link, messageId);
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
