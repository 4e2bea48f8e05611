import { ChannelType, type Client } from 'discord.js';
import type { DiscordChannelEntry, DiscordServerEntry } from '../domain/chat/directory.js';

/** The channel types a link accepts: messages and threads arrive from these (voice and stage text chats do not count). */
const CONNECTABLE: ReadonlyMap<ChannelType, DiscordChannelEntry['kind']> = new Map([
  [ChannelType.GuildText, 'text'],
  [ChannelType.GuildAnnouncement, 'announcement'],
  [ChannelType.GuildForum, 'forum'],
  [ChannelType.GuildMedia, 'media'],
]);

/**
 * The servers the client is in (available ones: GUILD_CREATE brought their channels) and their
 * connectable channels in Discord's sidebar order. Read from the gateway's cache: no REST call.
 */
export function serversOf(client: Client): DiscordServerEntry[] {
  return [...client.guilds.cache.values()]
    .filter((guild) => guild.available)
    .map((guild) => ({
      id: guild.id,
      name: guild.name,
      channels: [...guild.channels.cache.values()]
        .flatMap((c) => {
          const kind = CONNECTABLE.get(c.type);
          return kind && 'rawPosition' in c ? [{ id: c.id, name: c.name, kind, position: c.rawPosition }] : [];
        })
        .sort((a, b) => a.position - b.position || a.id.localeCompare(b.id))
        .map(({ id, name, kind }) => ({ id, name, kind })),
    }));
}
