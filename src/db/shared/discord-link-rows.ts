import type { DiscordLinkRows } from '../../domain/chat/links.js';
import type { DiscordLink } from '../../domain/chat/types.js';
import { DISCORD_LINK_LOCK } from './advisory-locks.js';
import type { SqlExecutor } from './executor.js';
import { perEngine, statement } from './statement.js';

const LINK_COLUMNS = `channel_id AS "channelId", discord_channel_id AS "discordChannelId", guild_id AS "guildId",
  guild_name AS "guildName", discord_channel_name AS "discordChannelName", synced_until AS "syncedUntil", created_at AS "createdAt"`;

type LinkKey = Pick<DiscordLink, 'channelId' | 'discordChannelId'>;

const ALL = statement<Record<string, never>, DiscordLink>(`SELECT ${LINK_COLUMNS} FROM discord_links ORDER BY created_at, channel_id`);
const BY_CHANNEL = statement<{ channelId: string }, DiscordLink>(`SELECT ${LINK_COLUMNS} FROM discord_links WHERE channel_id = :channelId`);
const BY_DISCORD = statement<{ discordChannelId: string }, DiscordLink>(`SELECT ${LINK_COLUMNS} FROM discord_links WHERE discord_channel_id = :discordChannelId`);
const INSERT = statement<LinkKey & { now: number }, DiscordLink>(
  `INSERT INTO discord_links (channel_id, discord_channel_id, created_at) VALUES (:channelId, :discordChannelId, :now) RETURNING ${LINK_COLUMNS}`,
);
const REMOVE = statement<{ channelId: string }>('DELETE FROM discord_links WHERE channel_id = :channelId');
/** How many chat messages a channel holds (the link rows and the chat writes answer it). */
export const CHAT_MESSAGES = statement<{ channelId: string }, { count: number }>("SELECT count(*) AS count FROM alerts WHERE channel_id = :channelId AND kind = 'chat'");
/** PostgreSQL: two nodes connecting at once decide one after the other (SQLite's BEGIN IMMEDIATE already does). */
const CONNECT_LOCK = perEngine({ sqlite: null, pg: `SELECT pg_advisory_xact_lock(${DISCORD_LINK_LOCK})` });

/** The names the bot last saw, written only when they changed (the chat units of both engines run it). */
export const SET_LINK_NAMES = statement<LinkKey & { guildId: string | null; guildName: string | null; channelName: string | null }>(
  `UPDATE discord_links SET guild_id = :guildId, guild_name = :guildName, discord_channel_name = :channelName
   WHERE channel_id = :channelId AND discord_channel_id = :discordChannelId
     AND (guild_id IS DISTINCT FROM :guildId OR guild_name IS DISTINCT FROM :guildName OR discord_channel_name IS DISTINCT FROM :channelName)`,
);

/**
 * The sync mark moves only forward (compared as numbers: a snowflake may outgrow bigint one day),
 * and only while the link still points at the same Discord channel.
 */
export const ADVANCE_MARK = statement<LinkKey & { messageId: string }>(
  `UPDATE discord_links SET synced_until = :messageId
   WHERE channel_id = :channelId AND discord_channel_id = :discordChannelId
     AND (synced_until IS NULL OR CAST(synced_until AS NUMERIC) < CAST(:messageId AS NUMERIC))`,
);

/** The `discord_links` table, on either engine (the names and the sync mark are written by the chat units). */
export class SqlDiscordLinkRows implements DiscordLinkRows {
  constructor(private readonly database: SqlExecutor) {}

  all(): Promise<DiscordLink[]> {
    return this.database.all(ALL, {});
  }

  byChannel(channelId: string): Promise<DiscordLink | undefined> {
    return this.database.get(BY_CHANNEL, { channelId });
  }

  /** One transaction: the check and the insert cannot interleave with another connect. */
  connect<R>(
    channelId: string,
    discordChannelId: string,
    now: number,
    decide: (current: DiscordLink | undefined, other: DiscordLink | undefined) => R | 'insert',
  ): Promise<R | DiscordLink> {
    return this.database.transaction(function* (tx) {
      yield* tx.run(CONNECT_LOCK, {});
      const decision = decide(yield* tx.get(BY_CHANNEL, { channelId }), yield* tx.get(BY_DISCORD, { discordChannelId }));
      if (decision !== 'insert') return decision;
      const created = yield* tx.get(INSERT, { channelId, discordChannelId, now });
      if (!created) throw new Error(`the link of ${channelId} was just inserted and is not there`);
      return created;
    });
  }

  async remove(channelId: string): Promise<void> {
    await this.database.run(REMOVE, { channelId });
  }

  async chatMessageCount(channelId: string): Promise<number> {
    return (await this.database.value(CHAT_MESSAGES, { channelId })) ?? 0;
  }
}
