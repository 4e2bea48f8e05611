import type pg from 'pg';
import type { DiscordLinkRows } from '../../domain/chat/links.js';
import type { DiscordLink } from '../../domain/chat/types.js';
import { DISCORD_LINK_LOCK } from './locks.js';
import { inTransaction } from './transaction.js';

const LINK_COLUMNS = `channel_id AS "channelId", discord_channel_id AS "discordChannelId", guild_id AS "guildId",
  guild_name AS "guildName", discord_channel_name AS "discordChannelName", synced_until AS "syncedUntil", created_at AS "createdAt"`;

/**
 * The `discord_links` table on PostgreSQL: the statements of src/db/discord-link-rows.ts. It has no
 * DiscordLinkUnitWrites (names, sync mark): those belong to the PostgreSQL alert store's chat units.
 */
export class PgDiscordLinkRows implements DiscordLinkRows {
  constructor(private readonly pool: pg.Pool) {}

  async all(): Promise<DiscordLink[]> {
    return (await this.pool.query<DiscordLink>(`SELECT ${LINK_COLUMNS} FROM discord_links ORDER BY created_at, channel_id`)).rows;
  }

  async byChannel(channelId: string): Promise<DiscordLink | undefined> {
    return (await this.pool.query<DiscordLink>(`SELECT ${LINK_COLUMNS} FROM discord_links WHERE channel_id = $1`, [channelId])).rows[0];
  }

  /** One transaction under DISCORD_LINK_LOCK, so two nodes connecting at once decide one after the other. */
  async connect<R>(
    channelId: string,
    discordChannelId: string,
    now: number,
    decide: (current: DiscordLink | undefined, other: DiscordLink | undefined) => R | 'insert',
  ): Promise<R | DiscordLink> {
    return inTransaction(this.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [DISCORD_LINK_LOCK]);
      const one = async (where: string, value: string) =>
        (await client.query<DiscordLink>(`SELECT ${LINK_COLUMNS} FROM discord_links WHERE ${where} = $1`, [value])).rows[0];
      const decision = decide(await one('channel_id', channelId), await one('discord_channel_id', discordChannelId));
      if (decision !== 'insert') return decision;
      const { rows } = await client.query<DiscordLink>(
        `INSERT INTO discord_links (channel_id, discord_channel_id, created_at) VALUES ($1, $2, $3) RETURNING ${LINK_COLUMNS}`,
        [channelId, discordChannelId, now],
      );
      const created = rows[0];
      if (!created) throw new Error(`the link of ${channelId} was just inserted and is not there`);
      return created;
    });
  }

  async remove(channelId: string): Promise<void> {
    await this.pool.query('DELETE FROM discord_links WHERE channel_id = $1', [channelId]);
  }

  async chatMessageCount(channelId: string): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>("SELECT count(*) AS n FROM alerts WHERE channel_id = $1 AND kind = 'chat'", [channelId]);
    return rows[0]?.n ?? 0;
  }
}
