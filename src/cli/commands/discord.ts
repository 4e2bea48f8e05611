import type { Command } from '../command.js';
import type { Services } from '../../services.js';

const links = (s: Services) => s.discordLinks;

/** Connecting channels to Discord. The running bot picks changes up within a few seconds. */
export const discordCommands: Command[] = [
  {
    name: 'channel connect-discord',
    usage: '--channel C --discord-channel <snowflake>',
    summary: 'mirror a Discord text channel into a channel (names show once the bot has seen it)',
    run: (s, f) => {
      const { created: _created, ...link } = links(s).connect(f.require('channel'), f.require('discord-channel'));
      return link;
    },
  },
  {
    name: 'channel disconnect-discord',
    usage: '--channel C',
    summary: 'stop mirroring Discord into a channel (stored messages stay)',
    run: (s, f) => links(s).disconnect(f.require('channel')),
  },
  {
    name: 'channel discord-status',
    usage: '--channel C',
    summary: 'show the Discord connection of a channel: names, sync point, stored messages',
    run: (s, f) => links(s).status(f.require('channel')),
  },
];
